import Decimal from 'decimal.js';
import { price, type Pricing, type PriceKey } from './pricing';

const SECONDS_PER_MINUTE = 60;
const MILLION = 1_000_000;

/** A model billed in a unit it has no price for: refused rather than billed 0 by omission. */
export class MissingPriceError extends Error {
  constructor(readonly key: PriceKey) {
    super(`The pricing has no ${key} price`);
    this.name = 'MissingPriceError';
  }
}

function required(pricing: Pricing, key: PriceKey): Decimal {
  const value = price(pricing, key);
  if (value === null) throw new MissingPriceError(key);
  return value;
}

/** Speech to text: the per-minute price for the exact seconds (not rounded up to whole minutes), plus any per-request fee. */
export function sttCost(pricing: Pricing, durationSeconds: number): Decimal {
  if (!Number.isFinite(durationSeconds) || durationSeconds < 0)
    throw new RangeError(`Invalid audio duration ${durationSeconds}`);
  const perRequest = price(pricing, 'per_request') ?? new Decimal(0);
  return required(pricing, 'stt_per_minute').times(durationSeconds).div(SECONDS_PER_MINUTE).plus(perRequest);
}

/** Text to speech: the price per million characters of input text, plus any per-request fee. */
export function ttsCost(pricing: Pricing, characters: number): Decimal {
  if (!Number.isInteger(characters) || characters < 0)
    throw new RangeError(`Invalid character count ${characters}`);
  const perRequest = price(pricing, 'per_request') ?? new Decimal(0);
  return required(pricing, 'tts_per_million_characters').times(characters).div(MILLION).plus(perRequest);
}
