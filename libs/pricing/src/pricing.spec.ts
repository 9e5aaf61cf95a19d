import { unitCost } from './generation-cost';
import {
  costNumber,
  costString,
  matchTier,
  missingBilledUnits,
  PER_REQUEST_UNIT,
  price,
  type Pricing,
  PRICING_KEYS,
  PRICING_TIER_KEYS,
  type PricingTier,
  type TierParameters,
  unitParamProblem,
} from './pricing';

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
