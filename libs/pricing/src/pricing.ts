import Decimal from 'decimal.js';

/** A per-unit price: a decimal string, or an empty object where the unit does not apply. */
export type PriceValue = string | Record<string, never>;

export interface PricingTier {
  /** Each of the form `<parameter>=<value>`; a tier applies when all of them hold. */
  conditions: string[];
  cost_rub: string;
}

/** The per-unit prices of a pricing, in the interface's order; the one list the Pricing type is made of. */
export const PRICE_KEYS = [
  'prompt_per_million',
  'completion_per_million',
  'request_per_thousand',
  'image_input_per_million',
  'image_output_per_million',
  'audio_per_million',
  'web_search_per_thousand',
  'internal_reasoning_per_million',
  'input_cache_read_per_million',
  'input_cache_write_per_million',
  'input_audio_cache_per_million',
  'stt_per_minute',
  'tts_per_million_characters',
  'video_per_second',
  'per_request',
] as const;

export type PriceKey = (typeof PRICE_KEYS)[number];

/**
 * The catalogue's "Pricing object"; every price is in `currency` (RUB). Declared once: the HTTP
 * DTO implements it and the contracts use it.
 */
export type Pricing = { [key in PriceKey]?: PriceValue } & {
  currency: string;
  tiers?: PricingTier[];
  /** What one priced unit counts (see UNIT_PARAM_OF_METERED_TYPE and PER_REQUEST_UNIT). */
  unitParam?: string;
};

/** Every key of a Pricing object, as a catalogue writes them all; its DTO's spec holds it to this list. */
export const PRICING_KEYS: readonly (keyof Pricing)[] = ['currency', ...PRICE_KEYS, 'tiers', 'unitParam'];

/** Every key of a pricing tier. */
export const PRICING_TIER_KEYS: readonly (keyof PricingTier)[] = ['conditions', 'cost_rub'];

export const COST_DECIMAL_PLACES = 8;

/**
 * Parsed prices per pricing object: a catalogue entry's pricing is read for every request, and a
 * Decimal is immutable, so each price string is parsed once.
 */
const parsedPrices = new WeakMap<Pricing, Map<PriceKey, Decimal | null>>();

/** The price of one unit key, or null where it does not apply (absent, `{}` or empty). */
export function price(pricing: Pricing, key: PriceKey): Decimal | null {
  let prices = parsedPrices.get(pricing);
  if (!prices) parsedPrices.set(pricing, (prices = new Map<PriceKey, Decimal | null>()));
  let parsed = prices.get(key);
  if (parsed === undefined) {
    const value = pricing[key];
    parsed = typeof value !== 'string' || value.trim() === '' ? null : new Decimal(value);
    prices.set(key, parsed);
  }
  return parsed;
}

/** Rounds a cost to 8 places (half up), the precision of numeric(20,8) and of `cost_rub`. */
export function roundCost(cost: Decimal.Value): Decimal {
  return new Decimal(cost).toDecimalPlaces(COST_DECIMAL_PLACES, Decimal.ROUND_HALF_UP);
}

/** A cost as the decimal string that travels on the wire and is stored. */
export function costString(cost: Decimal.Value): string {
  return roundCost(cost).toFixed();
}

/** A cost as the `cost_rub` number of an API response (DESIGN.md §5.11): rounded before conversion. */
export function costNumber(cost: Decimal.Value): number {
  return roundCost(cost).toNumber();
}

/** Request parameter values as the tier conditions compare them (`<parameter>=<value>`, compared as text). */
export type TierParameters = Record<string, string | number | boolean | null | undefined>;

/**
 * The tier whose conditions all hold for `params`; where several hold, the one with the most
 * conditions (the most specific), the first of those in catalogue order. A tier without
 * conditions holds always. Null when none holds.
 */
export function matchTier(pricing: Pricing, params: TierParameters): PricingTier | null {
  let best: PricingTier | null = null;
  for (const tier of pricing.tiers ?? []) {
    const holds = tier.conditions.every((condition) => {
      const at = condition.indexOf('=');
      const value = params[condition.slice(0, at)];
      return value !== undefined && value !== null && String(value) === condition.slice(at + 1);
    });
    if (holds && (best === null || tier.conditions.length > best.conditions.length)) best = tier;
  }
  return best;
}

/**
 * The `unitParam` of a unit-priced pricing (an image, a video, an operation) whose unit is the
 * request itself, where no parameter counts anything (an upscale).
 */
export const PER_REQUEST_UNIT = 'request';

/**
 * The `unitParam` of the metered model types: what their per-unit prices count, as the provider
 * reports or the audio measures it rather than as a request parameter sets it: tokens for the
 * per-million token prices, the seconds of audio heard for stt_per_minute, the characters of the
 * text spoken for tts_per_million_characters.
 */
export const UNIT_PARAM_OF_METERED_TYPE: Readonly<Record<string, string>> = {
  chat: 'tokens',
  embedding: 'tokens',
  transcription: 'duration',
  audio: 'characters',
};

/** The part of a parameter descriptor that tells a number. */
export interface NumericParameterHint {
  min?: unknown;
  max?: unknown;
  default?: unknown;
}

/**
 * Why `unitParam` cannot say what a pricing of a model of `type` counts, or null when it can. A
 * metered type has its one fixed value; an image or video model, and any operation, names a
 * numeric parameter of its own `parameters` (whose value is the number of units) or
 * PER_REQUEST_UNIT. Checked at start, so a pricing that would price nothing is refused then.
 */
export function unitParamProblem(
  type: string,
  unitParam: string,
  parameters: Readonly<Record<string, NumericParameterHint>>,
): string | null {
  const metered = UNIT_PARAM_OF_METERED_TYPE[type];
  if (metered !== undefined) return unitParam === metered ? null : `must be ${metered} for ${type} models`;
  const counting = Object.keys(parameters).filter((name) => describesNumber(parameters[name]));
  if (unitParam === PER_REQUEST_UNIT || counting.includes(unitParam)) return null;
  return `must be ${PER_REQUEST_UNIT} or a numeric parameter of the model or operation${counting.length > 0 ? ` (${counting.join(', ')})` : ''}`;
}

function describesNumber(descriptor: NumericParameterHint): boolean {
  return [descriptor.min, descriptor.max, descriptor.default].some((value) => typeof value === 'number');
}

/** The units a model of each type is billed in; one price of every group must be set (fail closed). */
const BILLED_UNITS: Record<string, ReadonlyArray<ReadonlyArray<PriceKey | 'tiers'>>> = {
  chat: [['prompt_per_million'], ['completion_per_million']],
  embedding: [['prompt_per_million']],
  transcription: [['stt_per_minute']],
  audio: [['tts_per_million_characters']],
  image: [['image_output_per_million', 'per_request', 'tiers']],
  video: [['video_per_second', 'tiers']],
};

/**
 * What a model of `type` lacks to be billed: for each unit group without a price, its names
 * joined by ` or `. Empty when the pricing is complete; unknown types are billed by nothing.
 */
export function missingBilledUnits(type: string, pricing: Pricing): string[] {
  return (BILLED_UNITS[type] ?? [])
    .filter(
      (group) =>
        !group.some((key) =>
          key === 'tiers' ? (pricing.tiers?.length ?? 0) > 0 : price(pricing, key) !== null,
        ),
    )
    .map((group) => group.join(' or '));
}
