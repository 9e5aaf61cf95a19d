import Decimal from 'decimal.js';
import fc from 'fast-check';
import {
  affordableCompletionTokens,
  costLines,
  embeddingCost,
  generationCost,
  maxChatCost,
  type Usage,
} from './generation-cost';
import { type Pricing } from './pricing';

const chat: Pricing = {
  currency: 'RUB',
  prompt_per_million: '100',
  completion_per_million: '300',
  request_per_thousand: {},
};
const withFees: Pricing = {
  ...chat,
  request_per_thousand: '2',
  per_request: '0.01',
  web_search_per_thousand: '500',
};
const withReasoning: Pricing = {
  ...chat,
  internal_reasoning_per_million: '600',
  input_cache_read_per_million: '10',
};
const free: Pricing = { currency: 'RUB', prompt_per_million: '0', completion_per_million: {} };
/*
 * Hand-computed: every expectation below is worked out in the comment next to it, prices per
 * million tokens unless the unit says otherwise. Parts of a whole (cached and written of prompt,
 * audio and image of prompt, reasoning of completion, cached of audio) replace the whole's price
 * for that part, never add to it.
 */
const tokens: Pricing = {
  currency: 'RUB',
  prompt_per_million: '100',
  completion_per_million: '300',
  input_cache_read_per_million: '10',
  input_cache_write_per_million: '125',
  internal_reasoning_per_million: '600',
};
const full: Pricing = {
  ...tokens,
  image_input_per_million: '200',
  image_output_per_million: '4000',
  audio_per_million: '1000',
  input_audio_cache_per_million: '50',
  request_per_thousand: '2',
  per_request: '0.01',
  web_search_per_thousand: '500',
  video_per_second: '3',
};

describe('generationCost', () => {
  it.each<[string, Pricing, Usage, string]>([
    // 1000 × 100 + 500 × 300 = 250 000 → 0.25
    ['prompt and completion', chat, { prompt_tokens: 1000, completion_tokens: 500 }, '0.25'],
    ['nothing used', chat, { prompt_tokens: 0, completion_tokens: 0 }, '0'],
    ['one token each', chat, { prompt_tokens: 1, completion_tokens: 1 }, '0.0004'],
    // 0.25 + 2 / 1000 + 0.01 + 2 × 500 / 1000 = 1.262
    [
      'fixed fees and web search',
      withFees,
      { prompt_tokens: 1000, completion_tokens: 500, web_search_requests: 2 },
      '1.262',
    ],
    ['unpriced units', free, { prompt_tokens: 123456, completion_tokens: 654321 }, '0'],
    // 600 × 100 + 400 × 10 = 64 000 → 0.064 (billing the cached 400 on top would give 0.104)
    [
      'cache-read tokens at the cache price instead of the prompt price',
      tokens,
      { prompt_tokens: 1000, cached_prompt_tokens: 400 },
      '0.064',
    ],
    // 1000 × 100 → 0.1: without a cache price the cached tokens are ordinary prompt tokens
    [
      'cache-read tokens without a cache price',
      chat,
      { prompt_tokens: 1000, cached_prompt_tokens: 400 },
      '0.1',
    ],
    // reasoning is part of completion_tokens: 300 × 300 + 200 × 600 = 210 000 → 0.21 (on top would be 0.27)
    [
      'reasoning tokens at the reasoning price, inside completion_tokens',
      tokens,
      { completion_tokens: 500, reasoning_tokens: 200 },
      '0.21',
    ],
    // 500 × 300 → 0.15
    [
      'reasoning tokens without a reasoning price',
      chat,
      { completion_tokens: 500, reasoning_tokens: 200 },
      '0.15',
    ],
    // 600 × 100 + 400 × 10 + 300 × 300 + 200 × 600 = 274 000 → 0.274
    [
      'reasoning and cache prices together',
      withReasoning,
      { prompt_tokens: 1000, completion_tokens: 500, reasoning_tokens: 200, cached_prompt_tokens: 400 },
      '0.274',
    ],
    // 500 × 100 + 400 × 10 + 100 × 125 = 66 500 → 0.0665
    [
      'five-minute cache writes at the write price',
      tokens,
      { prompt_tokens: 1000, cached_prompt_tokens: 400, cache_write_prompt_tokens: 100 },
      '0.0665',
    ],
    // a one-hour write costs 2/1.25 of the five-minute price, 200: 500 × 100 + 400 × 10 + 100 × 200 = 74 000 → 0.074
    [
      'one-hour cache writes at 1.6 times the write price',
      tokens,
      {
        prompt_tokens: 1000,
        cached_prompt_tokens: 400,
        cache_write_prompt_tokens: 100,
        cache_write_1h_prompt_tokens: 100,
      },
      '0.074',
    ],
    // 1000 × 100 → 0.1: without a write price, writes of either duration are ordinary prompt tokens
    [
      'cache writes without a write price',
      chat,
      { prompt_tokens: 1000, cache_write_prompt_tokens: 300, cache_write_1h_prompt_tokens: 100 },
      '0.1',
    ],
    // writes cannot exceed the 600 uncached tokens: 400 × 10 + 600 × 125 = 79 000 → 0.079
    [
      'cache writes bounded by the uncached prompt',
      tokens,
      { prompt_tokens: 1000, cached_prompt_tokens: 400, cache_write_prompt_tokens: 900 },
      '0.079',
    ],
    // 200 × 100 + 1000 × 200 (image part of prompt) + 2000 × 4000 (image part of completion) = 8 220 000 → 8.22, fees 0.012 → 8.232
    [
      'image input and output tokens, parts of prompt and completion',
      full,
      {
        prompt_tokens: 1200,
        image_prompt_tokens: 1000,
        completion_tokens: 2000,
        image_completion_tokens: 2000,
      },
      '8.232',
    ],
    // 700 × 1000 + 300 × 50 = 715 000 → 0.715, plus the fees 0.012 → 0.727
    [
      'audio tokens, the cached part at the audio cache price',
      full,
      { prompt_tokens: 1000, audio_prompt_tokens: 1000, cached_audio_prompt_tokens: 300 },
      '0.727',
    ],
    // the answer's audio has no price of its own: 100 × 300 → 0.03
    [
      'audio in an answer at the completion price',
      tokens,
      { completion_tokens: 100, audio_completion_tokens: 100 },
      '0.03',
    ],
    // 5 × 3 = 15, plus the fees 0.012
    ['video seconds', full, { video_seconds: 5 }, '15.012'],
    // 2 / 1000 + 0.01 + 2 × 500 / 1000 = 1.012
    ['request, per-request and web search fees', full, { web_search_requests: 2 }, '1.012'],
    // 90 s at 0.60 a minute = 0.9
    ['seconds of audio heard', { currency: 'RUB', stt_per_minute: '0.60' }, { audio_seconds: 90 }, '0.9'],
    // 1234 × 1500 / 10⁶ = 1.851
    [
      'characters spoken',
      { currency: 'RUB', tts_per_million_characters: '1500' },
      { characters: 1234 },
      '1.851',
    ],
    // tier quality=high 16 × n 2 = 32; no per_request fee beside the unit price
    [
      'a unit-priced request at its tier, times unitParam',
      {
        currency: 'RUB',
        per_request: '4.00',
        tiers: [{ conditions: ['quality=high'], cost_rub: '16.00' }],
        unitParam: 'n',
      },
      { unit_parameters: { quality: 'high', n: 2 } },
      '32',
    ],
    // prompt: 100 text × 100 + 400 cached × 10 + 100 written × 125 + 200 audio (150 × 1000 + 50 × 50) + 200 image × 200 = 219 000
    // completion: 100 text × 300 + 200 reasoning × 600 + 200 image × 4000 = 950 000; 1 169 000 → 1.169
    // fees 0.002 + 0.01 + web search 1 → 2.181; video 15 → 17.181
    [
      'every unit at once',
      full,
      {
        prompt_tokens: 1000,
        cached_prompt_tokens: 400,
        cache_write_prompt_tokens: 100,
        audio_prompt_tokens: 200,
        cached_audio_prompt_tokens: 50,
        image_prompt_tokens: 200,
        completion_tokens: 500,
        reasoning_tokens: 200,
        image_completion_tokens: 200,
        web_search_requests: 2,
        video_seconds: 5,
      },
      '17.181',
    ],
  ])('prices %s', (_label, pricing, usage, expected) => {
    expect(generationCost(pricing, usage).toString()).toBe(expected);
  });
});

describe('costLines', () => {
  it('explains a charge line by line, each part at the price it was billed at', () => {
    const lines = costLines(tokens, {
      prompt_tokens: 1000,
      cached_prompt_tokens: 400,
      cache_write_prompt_tokens: 300,
      cache_write_1h_prompt_tokens: 100,
      completion_tokens: 500,
      reasoning_tokens: 200,
    });
    expect(lines.map((line) => [line.part, line.key, line.units, line.cost.toString()])).toEqual([
      ['prompt_text_tokens', 'prompt_per_million', 300, '0.03'],
      ['cached_prompt_tokens', 'input_cache_read_per_million', 400, '0.004'],
      ['cache_write_5m_prompt_tokens', 'input_cache_write_per_million', 200, '0.025'],
      ['cache_write_1h_prompt_tokens', 'input_cache_write_per_million', 100, '0.02'],
      ['completion_text_tokens', 'completion_per_million', 300, '0.09'],
      ['reasoning_tokens', 'internal_reasoning_per_million', 200, '0.12'],
    ]);
  });
});

describe('maxChatCost', () => {
  it.each([
    ['plain chat', chat, 1000, 1000, '0.4'],
    ['fees included', withFees, 0, 0, '0.012'],
    ['the dearer of completion and reasoning', withReasoning, 0, 1000, '0.6'],
    // 1000 × 200, the one-hour write price (125 × 1.6), the dearest way to bill a prompt token
    ['the prompt at its dearest part, a one-hour cache write', tokens, 1000, 0, '0.2'],
    // 1000 × 4000, image output
    ['the answer at its dearest part, image output', full, 0, 1000, '4.012'],
  ])('bounds %s', (_label, pricing, prompt, completion, expected) => {
    expect(maxChatCost(pricing, prompt, completion).toString()).toBe(expected);
  });
});

describe('affordableCompletionTokens', () => {
  it.each([
    ['a budget that covers the prompt', chat, 1000, '0.4', 1000],
    ['rounds down', chat, 1000, '0.1005999', 1],
    ['a partial token is not affordable', chat, 0, '0.0005999', 1],
    ['a budget below the prompt cost', chat, 10000, '0.5', 0],
    ['fees come first', withFees, 0, '0.012', 0],
    ['unpriced completions', free, 100, '0', Number.MAX_SAFE_INTEGER],
  ])('affords %s', (_label, pricing, prompt, budget, expected) => {
    expect(affordableCompletionTokens(pricing, prompt, budget)).toBe(expected);
  });

  it('never lets the affordable tokens cost more than the budget', () => {
    const budget = new Decimal('0.123456789');
    const affordable = affordableCompletionTokens(withFees, 777, budget);
    expect(maxChatCost(withFees, 777, affordable).lessThanOrEqualTo(budget)).toBe(true);
    expect(maxChatCost(withFees, 777, affordable + 1).greaterThan(budget)).toBe(true);
  });
});

describe('embeddingCost', () => {
  it.each<[string, Pricing, number, string]>([
    // 1234 × 13 = 16 042 → 0.016042
    ['input tokens at the prompt price', { currency: 'RUB', prompt_per_million: '13.00' }, 1234, '0.016042'],
    // 0.016042 + 0.01
    [
      'plus a per-request fee',
      { currency: 'RUB', prompt_per_million: '13.00', per_request: '0.01' },
      1234,
      '0.026042',
    ],
    ['a free model', { currency: 'RUB', prompt_per_million: '0' }, 1234, '0'],
  ])('prices %s', (_label, pricing, promptTokens, expected) => {
    expect(embeddingCost(pricing, promptTokens).toString()).toBe(expected);
  });
});

/** The token parts, each with the wholes it is counted in (a cached audio token is audio and prompt). */
type CountField = Exclude<keyof Usage, 'unit_parameters'>;
const PARTS: Record<string, CountField[]> = {
  prompt_tokens: ['prompt_tokens'],
  cached_prompt_tokens: ['cached_prompt_tokens', 'prompt_tokens'],
  cache_write_prompt_tokens: ['cache_write_prompt_tokens', 'prompt_tokens'],
  cache_write_1h_prompt_tokens: [
    'cache_write_1h_prompt_tokens',
    'cache_write_prompt_tokens',
    'prompt_tokens',
  ],
  audio_prompt_tokens: ['audio_prompt_tokens', 'prompt_tokens'],
  cached_audio_prompt_tokens: ['cached_audio_prompt_tokens', 'audio_prompt_tokens', 'prompt_tokens'],
  image_prompt_tokens: ['image_prompt_tokens', 'prompt_tokens'],
  completion_tokens: ['completion_tokens'],
  reasoning_tokens: ['reasoning_tokens', 'completion_tokens'],
  audio_completion_tokens: ['audio_completion_tokens', 'completion_tokens'],
  image_completion_tokens: ['image_completion_tokens', 'completion_tokens'],
  web_search_requests: ['web_search_requests'],
  characters: ['characters'],
  audio_seconds: ['audio_seconds'],
  video_seconds: ['video_seconds'],
};

const priceValue = fc.oneof(
  fc.constant({}),
  fc.integer({ min: 0, max: 100_000 }).map((cents) => new Decimal(cents).div(100).toFixed()),
);
const anyPricing: fc.Arbitrary<Pricing> = fc.record({
  currency: fc.constant('RUB'),
  prompt_per_million: priceValue,
  completion_per_million: priceValue,
  request_per_thousand: priceValue,
  image_input_per_million: priceValue,
  image_output_per_million: priceValue,
  audio_per_million: priceValue,
  web_search_per_thousand: priceValue,
  internal_reasoning_per_million: priceValue,
  input_cache_read_per_million: priceValue,
  input_cache_write_per_million: priceValue,
  input_audio_cache_per_million: priceValue,
  stt_per_minute: priceValue,
  tts_per_million_characters: priceValue,
  video_per_second: priceValue,
  per_request: priceValue,
});
const amount = fc.integer({ min: 0, max: 200_000 });
/** A usage as a provider reports it: parts within their wholes. */
const anyUsage: fc.Arbitrary<Usage> = fc
  .record({
    text: amount,
    cached: amount,
    write5m: amount,
    write1h: amount,
    audio: amount,
    cachedAudio: amount,
    image: amount,
    answer: amount,
    reasoning: amount,
    audioOut: amount,
    imageOut: amount,
    searches: fc.integer({ min: 0, max: 20 }),
    characters: amount,
    audioSeconds: fc.integer({ min: 0, max: 7200 }),
    videoSeconds: fc.integer({ min: 0, max: 60 }),
  })
  .map((u) => ({
    prompt_tokens: u.text + u.cached + u.write5m + u.write1h + u.audio + u.cachedAudio + u.image,
    cached_prompt_tokens: u.cached,
    cache_write_prompt_tokens: u.write5m + u.write1h,
    cache_write_1h_prompt_tokens: u.write1h,
    audio_prompt_tokens: u.audio + u.cachedAudio,
    cached_audio_prompt_tokens: u.cachedAudio,
    image_prompt_tokens: u.image,
    completion_tokens: u.answer + u.reasoning + u.audioOut + u.imageOut,
    reasoning_tokens: u.reasoning,
    audio_completion_tokens: u.audioOut,
    image_completion_tokens: u.imageOut,
    web_search_requests: u.searches,
    characters: u.characters,
    audio_seconds: u.audioSeconds,
    video_seconds: u.videoSeconds,
  }));

describe('generationCost properties', () => {
  it('never decreases when any part grows (its wholes growing with it)', () => {
    fc.assert(
      fc.property(
        anyPricing,
        anyUsage,
        fc.constantFrom(...Object.keys(PARTS)),
        fc.integer({ min: 1, max: 100_000 }),
        (pricing, usage, part, more) => {
          const grown: Usage = { ...usage };
          for (const field of PARTS[part]) grown[field] = (usage[field] ?? 0) + more;
          expect(generationCost(pricing, grown).greaterThanOrEqualTo(generationCost(pricing, usage))).toBe(
            true,
          );
        },
      ),
    );
  });

  it('never bills a part twice: a chat costs at most its tokens at the dearest price each, plus the fees', () => {
    fc.assert(
      fc.property(anyPricing, anyUsage, (pricing, usage) => {
        const chatUsage: Usage = {
          ...usage,
          characters: 0,
          audio_seconds: 0,
          video_seconds: 0,
          web_search_requests: 0,
        };
        const bound = maxChatCost(pricing, usage.prompt_tokens ?? 0, usage.completion_tokens ?? 0);
        expect(generationCost(pricing, chatUsage).lessThanOrEqualTo(bound)).toBe(true);
      }),
    );
  });

  it('bills every token of a usage exactly once: its lines count the prompt and the completion whole', () => {
    fc.assert(
      fc.property(anyPricing, anyUsage, (pricing, usage) => {
        // Priced at 1 per million for every token kind, every token is on exactly one line.
        const ones: Pricing = { ...pricing, prompt_per_million: '1', completion_per_million: '1' };
        const lines = costLines(ones, usage);
        const promptLines = lines.filter((line) => line.part.includes('prompt'));
        const completionLines = lines.filter(
          (line) => line.part.includes('completion') || line.part === 'reasoning_tokens',
        );
        expect(promptLines.reduce((sum, line) => sum + line.units, 0)).toBe(usage.prompt_tokens);
        expect(completionLines.reduce((sum, line) => sum + line.units, 0)).toBe(usage.completion_tokens);
      }),
    );
  });
});
