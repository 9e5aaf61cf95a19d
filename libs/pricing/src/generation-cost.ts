import Decimal from 'decimal.js';
import {
  matchTier,
  price,
  PER_REQUEST_UNIT,
  type PriceKey,
  type Pricing,
  type TierParameters,
} from './pricing';

/**
 * Everything a generation can be billed for, in one shape for every kind of generation. Token
 * parts are parts of their whole, as OpenAI, OpenRouter and Anthropic-through-the-gateway report
 * them: the cached, cache-written, audio and image tokens of a prompt are counted in
 * `prompt_tokens`, the reasoning, audio and image tokens of an answer in `completion_tokens`. A
 * part is billed at its own price where the catalogue sets one and at its whole's price otherwise,
 * never on top of the whole; a part larger than what is left of its whole is cut to it.
 */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** Part of prompt_tokens read from the provider's cache: input_cache_read_per_million. */
  cached_prompt_tokens?: number;
  /** Part of prompt_tokens written to the provider's cache, of either duration: input_cache_write_per_million. */
  cache_write_prompt_tokens?: number;
  /**
   * Part of cache_write_prompt_tokens written to a one-hour cache (Anthropic's ephemeral_1h); the
   * rest went to the five-minute cache, which input_cache_write_per_million prices.
   */
  cache_write_1h_prompt_tokens?: number;
  /** Part of prompt_tokens that is audio: audio_per_million. */
  audio_prompt_tokens?: number;
  /** Part of audio_prompt_tokens read from the cache: input_audio_cache_per_million. */
  cached_audio_prompt_tokens?: number;
  /** Part of prompt_tokens that is images: image_input_per_million. */
  image_prompt_tokens?: number;
  /** Part of completion_tokens spent on hidden reasoning: internal_reasoning_per_million. */
  reasoning_tokens?: number;
  /** Part of completion_tokens that is audio; the catalogue has no price of its own for it. */
  audio_completion_tokens?: number;
  /** Part of completion_tokens that is images: image_output_per_million. */
  image_completion_tokens?: number;
  /** Searches the provider ran: web_search_per_thousand. */
  web_search_requests?: number;
  /** Characters spoken: tts_per_million_characters. */
  characters?: number;
  /** Seconds of audio heard, billed by the minute without rounding: stt_per_minute. */
  audio_seconds?: number;
  /** Seconds of video generated: video_per_second. */
  video_seconds?: number;
  /** Requests this usage stands for (request_per_thousand, per_request); 1 where absent. */
  requests?: number;
  /**
   * The request's parameters (with the model's defaults) where it is priced per unit, as images,
   * videos and operations are: the unit price is the matching tier's, else video_per_second, else
   * per_request, times the value of the `unitParam` parameter (see unitCost).
   */
  unit_parameters?: TierParameters;
}

/** One line of an invoice: what part of a usage was billed, at which catalogue price. */
export interface CostLine {
  /** The usage field the units come from. */
  part: keyof Usage | 'prompt_text_tokens' | 'completion_text_tokens' | 'cache_write_5m_prompt_tokens';
  /** The catalogue price applied; `tiers` where a tier's cost_rub was. */
  key: PriceKey | 'tiers';
  units: number;
  /** What one unit costs here (per token, per search, per second, per character). */
  unitPrice: Decimal;
  cost: Decimal;
}

const MILLION = new Decimal(1_000_000);
const THOUSAND = new Decimal(1_000);
const SECONDS_PER_MINUTE = new Decimal(60);
/** Anthropic prices a one-hour cache write at 2x the input price and a five-minute one at 1.25x: the one-hour write is 1.6 times the five-minute price. */
const ONE_HOUR_WRITE_FACTOR = new Decimal(2).div('1.25');

function count(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The first price the pricing sets, with the key it is found under. */
function firstPrice(pricing: Pricing, keys: PriceKey[]): { key: PriceKey; value: Decimal } | null {
  for (const key of keys) {
    const value = price(pricing, key);
    if (value !== null) return { key, value };
  }
  return null;
}

/** The invoice of a usage, line by line; lines of no units or of no price are left out. */
export function costLines(pricing: Pricing, usage: Usage): CostLine[] {
  const lines: CostLine[] = [];
  const add = (
    part: CostLine['part'],
    units: number,
    keys: PriceKey[],
    per: Decimal,
    factor: Decimal.Value = 1,
  ): void => {
    const found = firstPrice(pricing, keys);
    if (units <= 0 || found === null) return;
    const perUnit = found.value.times(factor);
    // Multiplied before the division, so that a price per minute or per million stays exact.
    lines.push({
      part,
      key: found.key,
      units,
      unitPrice: perUnit.div(per),
      cost: perUnit.times(units).div(per),
    });
  };

  const prompt = count(usage.prompt_tokens);
  let left = prompt;
  const take = (value: number | undefined, of = left): number => Math.min(count(value), of);
  const cached = take(usage.cached_prompt_tokens);
  left -= cached;
  const written = take(usage.cache_write_prompt_tokens);
  left -= written;
  const writtenHour = take(usage.cache_write_1h_prompt_tokens, written);
  const audio = take(usage.audio_prompt_tokens);
  left -= audio;
  const cachedAudio = take(usage.cached_audio_prompt_tokens, audio);
  const image = take(usage.image_prompt_tokens);
  left -= image;
  add('prompt_text_tokens', left, ['prompt_per_million'], MILLION);
  add('cached_prompt_tokens', cached, ['input_cache_read_per_million', 'prompt_per_million'], MILLION);
  add(
    'cache_write_5m_prompt_tokens',
    written - writtenHour,
    ['input_cache_write_per_million', 'prompt_per_million'],
    MILLION,
  );
  add(
    'cache_write_1h_prompt_tokens',
    writtenHour,
    ['input_cache_write_per_million', 'prompt_per_million'],
    MILLION,
    price(pricing, 'input_cache_write_per_million') === null ? 1 : ONE_HOUR_WRITE_FACTOR,
  );
  add('audio_prompt_tokens', audio - cachedAudio, ['audio_per_million', 'prompt_per_million'], MILLION);
  add(
    'cached_audio_prompt_tokens',
    cachedAudio,
    ['input_audio_cache_per_million', 'audio_per_million', 'prompt_per_million'],
    MILLION,
  );
  add('image_prompt_tokens', image, ['image_input_per_million', 'prompt_per_million'], MILLION);

  let rest = count(usage.completion_tokens);
  const reasoning = Math.min(count(usage.reasoning_tokens), rest);
  rest -= reasoning;
  const audioOut = Math.min(count(usage.audio_completion_tokens), rest);
  rest -= audioOut;
  const imageOut = Math.min(count(usage.image_completion_tokens), rest);
  rest -= imageOut;
  add('completion_text_tokens', rest, ['completion_per_million'], MILLION);
  add('reasoning_tokens', reasoning, ['internal_reasoning_per_million', 'completion_per_million'], MILLION);
  add('audio_completion_tokens', audioOut, ['completion_per_million'], MILLION);
  add('image_completion_tokens', imageOut, ['image_output_per_million', 'completion_per_million'], MILLION);

  const requests = usage.requests === undefined ? 1 : count(usage.requests);
  add('web_search_requests', count(usage.web_search_requests), ['web_search_per_thousand'], THOUSAND);
  add('requests', requests, ['request_per_thousand'], THOUSAND);
  add('audio_seconds', count(usage.audio_seconds), ['stt_per_minute'], SECONDS_PER_MINUTE);
  add('characters', count(usage.characters), ['tts_per_million_characters'], MILLION);
  if (usage.unit_parameters) {
    const unit = unitLine(pricing, usage.unit_parameters);
    if (unit) lines.push(unit);
  } else {
    add('requests', requests, ['per_request'], new Decimal(1));
    add('video_seconds', count(usage.video_seconds), ['video_per_second'], new Decimal(1));
  }
  return lines;
}

/**
 * The cost of a unit-priced request (an image, a video, an operation): the price of one unit is
 * the matching tier's cost_rub, else video_per_second, else per_request; the number of units is
 * the value of the `unitParam` parameter (seconds of `duration`, `n` images), 1 for
 * PER_REQUEST_UNIT (or none). `params` must carry the defaults of the model's parameter
 * descriptors, as the request is run with them. Null when nothing prices the request, so a
 * caller cannot bill 0 by omission.
 */
export function unitCost(pricing: Pricing, params: TierParameters): Decimal | null {
  return unitLine(pricing, params)?.cost ?? null;
}

/** The line of a unit-priced request (see unitCost), or null where nothing prices it or its units are not a number. */
function unitLine(pricing: Pricing, params: TierParameters): CostLine | null {
  const tier = matchTier(pricing, params);
  const found = tier
    ? { key: 'tiers' as const, value: new Decimal(tier.cost_rub) }
    : firstPrice(pricing, ['video_per_second', 'per_request']);
  if (found === null) return null;
  const perRequest = !pricing.unitParam || pricing.unitParam === PER_REQUEST_UNIT;
  const units = perRequest ? 1 : Number(params[pricing.unitParam ?? ''] ?? Number.NaN);
  if (!Number.isFinite(units) || units < 0) return null;
  return {
    part: 'unit_parameters',
    key: found.key,
    units,
    unitPrice: found.value,
    cost: found.value.times(units),
  };
}

/** The cost of any generation from its usage, unrounded: the sum of its invoice lines. */
export function generationCost(pricing: Pricing, usage: Usage): Decimal {
  return costLines(pricing, usage).reduce((sum, line) => sum.plus(line.cost), new Decimal(0));
}

/** A million tokens of each kind a prompt can hold, and of each kind an answer can. */
const PROMPT_KINDS: Usage[] = [
  {},
  { cached_prompt_tokens: 1_000_000 },
  { cache_write_prompt_tokens: 1_000_000 },
  { cache_write_prompt_tokens: 1_000_000, cache_write_1h_prompt_tokens: 1_000_000 },
  { audio_prompt_tokens: 1_000_000 },
  { audio_prompt_tokens: 1_000_000, cached_audio_prompt_tokens: 1_000_000 },
  { image_prompt_tokens: 1_000_000 },
];
const COMPLETION_KINDS: Usage[] = [
  {},
  { reasoning_tokens: 1_000_000 },
  { audio_completion_tokens: 1_000_000 },
  { image_completion_tokens: 1_000_000 },
];

const dearest = new WeakMap<Pricing, { prompt: Decimal; completion: Decimal; fees: Decimal }>();

/**
 * The dearest price per million of a prompt token and of a completion token, whatever kind the
 * provider reports it as, and the fees of one request; from generationCost, so a bound made of
 * them never falls short of what generationCost charges.
 */
function dearestPrices(pricing: Pricing): { prompt: Decimal; completion: Decimal; fees: Decimal } {
  let prices = dearest.get(pricing);
  if (!prices) {
    const perMillion = (kinds: Usage[], whole: 'prompt_tokens' | 'completion_tokens') =>
      Decimal.max(
        ...kinds.map((kind) => generationCost(pricing, { ...kind, [whole]: 1_000_000, requests: 0 })),
      );
    prices = {
      prompt: perMillion(PROMPT_KINDS, 'prompt_tokens'),
      completion: perMillion(COMPLETION_KINDS, 'completion_tokens'),
      fees: generationCost(pricing, {}),
    };
    dearest.set(pricing, prices);
  }
  return prices;
}

/**
 * The most a request can cost when it sends at most `promptTokensUpperBound` and gets at most
 * `maxCompletionTokens`, whatever parts the provider reports them as; searches the provider may run
 * are not known up front and are held for once it has reported them.
 */
export function maxChatCost(
  pricing: Pricing,
  promptTokensUpperBound: number,
  maxCompletionTokens: number,
): Decimal {
  const prices = dearestPrices(pricing);
  return prices.prompt
    .times(promptTokensUpperBound)
    .plus(prices.completion.times(maxCompletionTokens))
    .div(MILLION)
    .plus(prices.fees);
}

/**
 * How many completion tokens `budget` pays for after the prompt and the fixed fees; rounded
 * down, never negative. Unpriced completions are unlimited (Number.MAX_SAFE_INTEGER).
 */
export function affordableCompletionTokens(
  pricing: Pricing,
  promptTokensUpperBound: number,
  budget: Decimal.Value,
): number {
  const rest = new Decimal(budget).minus(maxChatCost(pricing, promptTokensUpperBound, 0));
  if (rest.isNegative()) return 0;
  const completionPrice = dearestPrices(pricing).completion;
  if (completionPrice.isZero()) return Number.MAX_SAFE_INTEGER;
  const tokens = rest.times(MILLION).div(completionPrice).floor();
  return tokens.greaterThan(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : tokens.toNumber();
}

/** An embedding request: its input tokens at the prompt price, plus the fixed fees. */
export function embeddingCost(pricing: Pricing, promptTokens: number): Decimal {
  return generationCost(pricing, { prompt_tokens: promptTokens });
}
