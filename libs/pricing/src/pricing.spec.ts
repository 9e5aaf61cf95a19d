import Decimal from 'decimal.js';
import {
  affordableCompletionTokens,
  chatCost,
  costNumber,
  costString,
  embeddingCost,
  matchTier,
  maxChatCost,
  type MeteredUsage,
  meteredCost,
  missingBilledUnits,
  PER_REQUEST_UNIT,
  price,
  type Pricing,
  PRICING_KEYS,
  PRICING_TIER_KEYS,
  type PricingTier,
  type TierParameters,
  unitCost,
  unitParamProblem,
} from './pricing';

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

describe('PRICING_KEYS', () => {
  it('lists every key of a Pricing object and of a tier', () => {
    // Typed as Required, the literal does not compile once Pricing gains a key it lacks.
    const tier: Required<PricingTier> = { conditions: [], cost_rub: '1' };
    const every: Required<Pricing> = {
      currency: 'RUB',
      prompt_per_million: {},
      completion_per_million: {},
      request_per_thousand: {},
      image_input_per_million: {},
      image_output_per_million: {},
      audio_per_million: {},
      web_search_per_thousand: {},
      internal_reasoning_per_million: {},
      input_cache_read_per_million: {},
      input_cache_write_per_million: {},
      input_audio_cache_per_million: {},
      stt_per_minute: {},
      tts_per_million_characters: {},
      video_per_second: {},
      per_request: {},
      tiers: [tier],
      unitParam: 'tokens',
    };
    expect([...PRICING_KEYS].sort()).toEqual(Object.keys(every).sort());
    expect([...PRICING_TIER_KEYS].sort()).toEqual(Object.keys(tier).sort());
  });
});

describe('price', () => {
  it.each([
    ['a decimal string', { currency: 'RUB', prompt_per_million: '1.5' }, '1.5'],
    ['an empty object', { currency: 'RUB', prompt_per_million: {} }, null],
    ['an absent key', { currency: 'RUB' }, null],
    ['an empty string', { currency: 'RUB', prompt_per_million: '' }, null],
  ])('reads %s', (_label, pricing, expected) => {
    expect(price(pricing, 'prompt_per_million')?.toString() ?? null).toBe(expected);
  });
});

describe('chatCost', () => {
  it.each([
    ['prompt and completion', chat, { prompt_tokens: 1000, completion_tokens: 500 }, '0.25'],
    ['nothing used', chat, { prompt_tokens: 0, completion_tokens: 0 }, '0'],
    ['one token each', chat, { prompt_tokens: 1, completion_tokens: 1 }, '0.0004'],
    [
      'fixed fees and web search',
      withFees,
      { prompt_tokens: 1000, completion_tokens: 500, web_search_requests: 2 },
      '1.262',
    ],
    [
      'reasoning and cache prices',
      withReasoning,
      { prompt_tokens: 1000, completion_tokens: 500, reasoning_tokens: 200, cached_prompt_tokens: 400 },
      '0.274',
    ],
    ['unpriced units', free, { prompt_tokens: 123456, completion_tokens: 654321 }, '0'],
  ])('prices %s', (_label, pricing, usage, expected) => {
    expect(chatCost(pricing, usage).toString()).toBe(expected);
  });
});

describe('maxChatCost', () => {
  it.each([
    ['plain chat', chat, 1000, 1000, '0.4'],
    ['fees included', withFees, 0, 0, '0.012'],
    ['the dearer of completion and reasoning', withReasoning, 0, 1000, '0.6'],
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
    const tokens = affordableCompletionTokens(withFees, 777, budget);
    expect(maxChatCost(withFees, 777, tokens).lessThanOrEqualTo(budget)).toBe(true);
    expect(maxChatCost(withFees, 777, tokens + 1).greaterThan(budget)).toBe(true);
  });
});

describe('rounding', () => {
  it.each([
    ['0.123456785', '0.12345679', 0.12345679],
    ['0.123456784999', '0.12345678', 0.12345678],
    ['12', '12', 12],
    ['0.00000001', '0.00000001', 0.00000001],
  ])('rounds %s to 8 places', (input, asString, asNumber) => {
    expect(costString(input)).toBe(asString);
    expect(costNumber(input)).toBe(asNumber);
  });
});

/*
 * Hand-computed: every expectation below is worked out in the comment next to it, prices per
 * million tokens unless the unit says otherwise. Parts of a total (cached of prompt, reasoning of
 * completion, cached of audio) replace the total's price for that part, never add to it.
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
const none = (usage: Partial<MeteredUsage>): MeteredUsage => ({
  prompt_tokens: 0,
  completion_tokens: 0,
  ...usage,
});

describe('meteredCost', () => {
  it.each<[string, Pricing, MeteredUsage, string]>([
    // 600 × 100 + 400 × 10 = 64 000 → 0.064 (billing the cached 400 on top would give 0.104)
    [
      'cache-read tokens at the cache price instead of the prompt price',
      tokens,
      none({ prompt_tokens: 1000, cached_prompt_tokens: 400 }),
      '0.064',
    ],
    // 1000 × 100 → 0.1: without a cache price the cached tokens are ordinary prompt tokens
    [
      'cache-read tokens without a cache price',
      chat,
      none({ prompt_tokens: 1000, cached_prompt_tokens: 400 }),
      '0.1',
    ],
    // reasoning is part of completion_tokens: 300 × 300 + 200 × 600 = 210 000 → 0.21 (on top would be 0.27)
    [
      'reasoning tokens at the reasoning price, inside completion_tokens',
      tokens,
      none({ completion_tokens: 500, reasoning_tokens: 200 }),
      '0.21',
    ],
    // 500 × 300 → 0.15
    [
      'reasoning tokens without a reasoning price',
      chat,
      none({ completion_tokens: 500, reasoning_tokens: 200 }),
      '0.15',
    ],
    // 500 × 100 + 400 × 10 + 100 × 125 = 66 500 → 0.0665
    [
      'cache writes at the write price',
      tokens,
      none({ prompt_tokens: 1000, cached_prompt_tokens: 400, cache_write_prompt_tokens: 100 }),
      '0.0665',
    ],
    // writes cannot exceed the 600 uncached tokens: 400 × 10 + 600 × 125 = 79 000 → 0.079
    [
      'cache writes bounded by the uncached prompt',
      tokens,
      none({ prompt_tokens: 1000, cached_prompt_tokens: 400, cache_write_prompt_tokens: 900 }),
      '0.079',
    ],
    // 1000 × 200 + 2000 × 4000 = 8 200 000 → 8.2, plus the fees 0.002 + 0.01 → 8.212
    [
      'image input and output tokens',
      full,
      none({ image_input_tokens: 1000, image_output_tokens: 2000 }),
      '8.212',
    ],
    // 700 × 1000 + 300 × 50 = 715 000 → 0.715, plus the fees 0.012 → 0.727
    [
      'audio tokens, the cached part at the audio cache price',
      full,
      none({ audio_tokens: 1000, cached_audio_tokens: 300 }),
      '0.727',
    ],
    // 5 × 3 = 15, plus the fees 0.012
    ['video seconds', full, none({ video_seconds: 5 }), '15.012'],
    // 2 / 1000 + 0.01 + 2 × 500 / 1000 = 1.012
    ['request, per-request and web search fees', full, none({ web_search_requests: 2 }), '1.012'],
    // 66 500 + 210 000 → 0.2765; images 8.2; audio 0.715; fees 1.012; video 15 → 25.2035
    [
      'every unit at once',
      full,
      {
        prompt_tokens: 1000,
        cached_prompt_tokens: 400,
        cache_write_prompt_tokens: 100,
        completion_tokens: 500,
        reasoning_tokens: 200,
        image_input_tokens: 1000,
        image_output_tokens: 2000,
        audio_tokens: 1000,
        cached_audio_tokens: 300,
        web_search_requests: 2,
        video_seconds: 5,
      },
      '25.2035',
    ],
  ])('prices %s', (_label, pricing, usage, expected) => {
    expect(meteredCost(pricing, usage).toString()).toBe(expected);
  });

  it('agrees with chatCost on chat usage', () => {
    const usage = {
      prompt_tokens: 1000,
      cached_prompt_tokens: 400,
      completion_tokens: 500,
      reasoning_tokens: 200,
    };
    expect(meteredCost(tokens, usage).toString()).toBe(chatCost(tokens, usage).toString());
  });
});

describe('maxChatCost with a cache-write price above the prompt price', () => {
  it('bounds the prompt at the dearest input price', () => {
    // 1000 × 125 → 0.125
    expect(maxChatCost(tokens, 1000, 0).toString()).toBe('0.125');
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

const video: Pricing = {
  currency: 'RUB',
  video_per_second: '10.00',
  tiers: [
    { conditions: ['resolution=720p'], cost_rub: '10.00' },
    { conditions: ['resolution=1080p'], cost_rub: '20.00' },
    { conditions: ['resolution=1080p', 'fps=60'], cost_rub: '30.00' },
  ],
  unitParam: 'duration',
};
const image: Pricing = {
  currency: 'RUB',
  per_request: '4.00',
  tiers: [
    { conditions: ['quality=high'], cost_rub: '16.00' },
    { conditions: ['quality=medium'], cost_rub: '8.00' },
  ],
  unitParam: 'n',
};
const classic: Pricing = {
  currency: 'RUB',
  per_request: '6.00',
  tiers: [{ conditions: ['quality=hd'], cost_rub: '12.00' }],
  unitParam: PER_REQUEST_UNIT,
};
const upscale: Pricing = { currency: 'RUB', per_request: '15.00', tiers: [], unitParam: PER_REQUEST_UNIT };

describe('matchTier', () => {
  const withDefault: Pricing = {
    ...video,
    tiers: [...(video.tiers ?? []), { conditions: [], cost_rub: '5.00' }],
  };
  it.each<[string, Pricing, TierParameters, string | null]>([
    ['the tier whose condition holds', video, { resolution: '720p' }, '10.00'],
    ['the most specific of several that hold', video, { resolution: '1080p', fps: 60 }, '30.00'],
    ['a less specific tier when a further condition fails', video, { resolution: '1080p', fps: 30 }, '20.00'],
    ['no tier when none holds', video, { resolution: '4k' }, null],
    ['no tier when the parameter is absent', video, {}, null],
    ['an unconditional tier when nothing more specific holds', withDefault, { resolution: '4k' }, '5.00'],
    [
      'a condition on a boolean',
      { currency: 'RUB', tiers: [{ conditions: ['watermark=true'], cost_rub: '1' }] },
      { watermark: true },
      '1',
    ],
    [
      'a value containing =',
      { currency: 'RUB', tiers: [{ conditions: ['style=a=b'], cost_rub: '2' }] },
      { style: 'a=b' },
      '2',
    ],
  ])('finds %s', (_label, pricing, params, expected) => {
    expect(matchTier(pricing, params)?.cost_rub ?? null).toBe(expected);
  });
});

describe('unitCost', () => {
  it.each<[string, Pricing, TierParameters, string | null]>([
    // 20 per second × 5 s
    ['a video second at its resolution tier', video, { resolution: '1080p', duration: 5 }, '100'],
    // 10 × 10
    ['another resolution tier', video, { resolution: '720p', duration: 10 }, '100'],
    // no tier: video_per_second 10 × 4
    ['video_per_second where no tier holds', video, { resolution: '480p', duration: 4 }, '40'],
    ['nothing when the unit parameter is missing', video, { resolution: '1080p' }, null],
    [
      'nothing when the unit parameter is not a number',
      video,
      { resolution: '1080p', duration: 'long' },
      null,
    ],
    // 16 per image × 2
    ['images at their quality tier', image, { quality: 'high', n: 2 }, '32'],
    // per_request 4 × 3
    ['images at per_request where no tier holds', image, { quality: 'low', n: 3 }, '12'],
    ['one request at its tier', classic, { quality: 'hd' }, '12'],
    ['one request at per_request', classic, { quality: 'standard' }, '6'],
    ['one request of an operation without parameters', upscale, {}, '15'],
    [
      'one request where no unitParam is given',
      { ...classic, unitParam: undefined },
      { quality: 'hd' },
      '12',
    ],
    ['nothing for a model without a unit price', { currency: 'RUB', prompt_per_million: '1' }, {}, null],
  ])('prices %s', (_label, pricing, params, expected) => {
    expect(unitCost(pricing, params)?.toString() ?? null).toBe(expected);
  });
});

describe('missingBilledUnits', () => {
  it.each<[string, Pricing, string[]]>([
    ['chat', { currency: 'RUB', prompt_per_million: '1', completion_per_million: '2' }, []],
    [
      'chat',
      { currency: 'RUB', prompt_per_million: '1', completion_per_million: {} },
      ['completion_per_million'],
    ],
    ['chat', { currency: 'RUB' }, ['prompt_per_million', 'completion_per_million']],
    ['embedding', { currency: 'RUB', prompt_per_million: '0' }, []],
    ['embedding', { currency: 'RUB', prompt_per_million: {} }, ['prompt_per_million']],
    ['transcription', { currency: 'RUB', stt_per_minute: '0.6' }, []],
    ['transcription', { currency: 'RUB', prompt_per_million: '1' }, ['stt_per_minute']],
    ['audio', { currency: 'RUB' }, ['tts_per_million_characters']],
    ['image', classic, []],
    ['image', { currency: 'RUB', tiers: [] }, ['image_output_per_million or per_request or tiers']],
    ['video', { currency: 'RUB', tiers: video.tiers }, []],
    ['video', { currency: 'RUB', per_request: '1' }, ['video_per_second or tiers']],
  ])('checks the pricing of type %s', (type, pricing, expected) => {
    expect(missingBilledUnits(type, pricing)).toEqual(expected);
  });
});

describe('unitParamProblem', () => {
  const videoParameters = {
    prompt: { max_length: 4000 },
    duration: { min: 3, max: 10, default: 5 },
    watermark: { default: false },
  };
  const imageParameters = { n: { min: 1, max: 10, default: 1 }, quality: { values: ['low', 'high'] } };
  it.each<
    [
      string,
      string,
      Record<
        string,
        { min?: number; max?: number; default?: unknown; max_length?: number; values?: string[] }
      >,
      string | null,
    ]
  >([
    ['chat', 'tokens', {}, null],
    ['embedding', 'tokens', {}, null],
    ['transcription', 'duration', {}, null],
    ['audio', 'characters', { speed: { min: 0.5, max: 2 } }, null],
    ['video', 'duration', videoParameters, null],
    ['image', 'n', imageParameters, null],
    ['image', 'request', imageParameters, null],
    ['video', 'request', {}, null],
    ['chat', 'max_tokens', {}, 'must be tokens for chat models'],
    ['embedding', 'request', {}, 'must be tokens for embedding models'],
    ['transcription', 'tokens', {}, 'must be duration for transcription models'],
    ['audio', 'speed', { speed: { min: 0.5, max: 2 } }, 'must be characters for audio models'],
    [
      'video',
      'prompt',
      videoParameters,
      'must be request or a numeric parameter of the model or operation (duration)',
    ],
    [
      'video',
      'watermark',
      videoParameters,
      'must be request or a numeric parameter of the model or operation (duration)',
    ],
    [
      'image',
      'seconds',
      imageParameters,
      'must be request or a numeric parameter of the model or operation (n)',
    ],
    ['video', 'duration', {}, 'must be request or a numeric parameter of the model or operation'],
    ['video', 'constructor', {}, 'must be request or a numeric parameter of the model or operation'],
  ])('a %s pricing counting %s', (type, unitParam, parameters, expected) => {
    expect(unitParamProblem(type, unitParam, parameters)).toBe(expected);
  });
});
