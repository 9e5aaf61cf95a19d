import type Decimal from 'decimal.js';
import { generationCost } from './generation-cost';
import { price, type Pricing, type PriceKey } from './pricing';

/** A model billed in a unit it has no price for: refused rather than billed 0 by omission. */
export class MissingPriceError extends Error {
  constructor(readonly key: PriceKey) {
    super(`The pricing has no ${key} price`);
    this.name = 'MissingPriceError';
  }
}

function requirePrice(pricing: Pricing, key: PriceKey): void {
  if (price(pricing, key) === null) throw new MissingPriceError(key);
}

/** Speech to text: the per-minute price for the exact seconds (not rounded up to whole minutes), plus any per-request fee. */
export function sttCost(pricing: Pricing, durationSeconds: number): Decimal {
  if (!Number.isFinite(durationSeconds) || durationSeconds < 0)
    throw new RangeError(`Invalid audio duration ${durationSeconds}`);
  requirePrice(pricing, 'stt_per_minute');
  return generationCost(pricing, { audio_seconds: durationSeconds });
}

/** Text to speech: the price per million characters of input text, plus any per-request fee. */
export function ttsCost(pricing: Pricing, characters: number): Decimal {
  if (!Number.isInteger(characters) || characters < 0)
    throw new RangeError(`Invalid character count ${characters}`);
  requirePrice(pricing, 'tts_per_million_characters');
  return generationCost(pricing, { characters });
}
