import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRICING_KEYS } from '@gw/pricing';
import { CatalogueError, loadCatalogue } from './catalogue-loader';

const DEMO = join(__dirname, '../../../config/catalogue.demo.json');
const EXAMPLE = join(__dirname, '../../../config/catalogue.example.json');
const variables = { MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010', MOCK_UPSTREAM_API_KEY: 'k' };

function withFile(mutate: (catalogue: { models: Array<Record<string, any>> }) => void): string {
  const catalogue = JSON.parse(readFileSync(DEMO, 'utf8'));
  mutate(catalogue);
  const file = join(mkdtempSync(join(tmpdir(), 'catalogue-')), 'catalogue.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

describe('loadCatalogue', () => {
  it('loads the demo catalogue with resolved routes and a derived top_provider', () => {
    const models = loadCatalogue(DEMO, variables);
    expect(models.map((m) => m.entry.id)).toHaveLength(10);
    const fallback = models.find((m) => m.entry.id === 'demo/chat-fallback');
    expect(fallback?.routes.map((r) => [r.name, r.wire, r.baseUrl, r.apiKey])).toEqual([
      ['Mock Broken', 'openai', 'http://127.0.0.1:4010/broken/v1', 'k'],
      ['Mock Alpha', 'openai', 'http://127.0.0.1:4010/alpha/v1', 'k'],
    ]);
    expect(fallback?.entry.top_provider).not.toHaveProperty('name');
    expect(JSON.stringify(models.map((m) => m.entry))).not.toContain('routing');
  });

  it("derives every model's endpoints from its type", () => {
    const endpoints = Object.fromEntries(
      loadCatalogue(DEMO, variables).map((m) => [m.entry.id, m.entry.endpoints]),
    );
    const chat = ['/v1/chat/completions', '/v2/chat/completions', '/v1/responses', '/v1/messages'];
    expect(endpoints).toEqual({
      'demo/chat': chat,
      'demo/chat-fallback': chat,
      'demo/embed-small': ['/v1/embeddings'],
      'demo/embed-large': ['/v1/embeddings'],
      'demo/whisper': ['/v1/audio/transcriptions'],
      'demo/transcribe-diarize': ['/v1/audio/transcriptions'],
      'demo/image': ['/v1/media', '/v2/media', '/v2/images/generations'],
      'demo/image-classic': ['/v1/media', '/v2/media', '/v2/images/generations'],
      'demo/video': ['/v1/media', '/v2/media'],
      'demo/tts': ['/v1/media', '/v2/media'],
    });
  });

  it.each<
    [string, Record<string, unknown>, { maxPromptTokens: number | null; maxCompletionTokens: number | null }]
  >([
    [
      'the lower of context_length and per_request_limits',
      {
        context_length: 200_000,
        max_completion_tokens: 64_000,
        per_request_limits: { prompt_tokens: 128_000, completion_tokens: 4_096 },
      },
      { maxPromptTokens: 128_000, maxCompletionTokens: 4_096 },
    ],
    [
      'the model limits where no per-request limit applies',
      {
        context_length: 8_192,
        max_completion_tokens: 1_024,
        per_request_limits: { prompt_tokens: null, completion_tokens: null },
      },
      { maxPromptTokens: 8_192, maxCompletionTokens: 1_024 },
    ],
    [
      'a per-request limit alone',
      {
        context_length: null,
        max_completion_tokens: null,
        per_request_limits: { prompt_tokens: 1_000, completion_tokens: null },
      },
      { maxPromptTokens: 1_000, maxCompletionTokens: null },
    ],
  ])('limits a request to %s', (_label, limits, expected) => {
    const file = withFile((c) => Object.assign(c.models[0].providers[0], limits));
    expect(loadCatalogue(file, variables)[0].routes[0]).toMatchObject(expected);
  });

  /* The interface's provider descriptor and pricing object: every field on every provider, top_provider and operation. */
  const DESCRIPTOR_FIELDS = [
    'is_moderated',
    'pricing',
    'context_length',
    'max_completion_tokens',
    'supported_parameters',
    'default_parameters',
    'per_request_limits',
    'parameters',
  ];

  it.each([
    ['demo', DEMO, variables],
    ['example', EXAMPLE, {}],
  ])(
    'gives every provider descriptor and pricing object of the %s catalogue every field',
    (_label, file, vars) => {
      for (const { entry } of loadCatalogue(file, vars)) {
        for (const descriptor of [entry.top_provider, ...entry.providers]) {
          expect(Object.keys(descriptor)).toEqual(expect.arrayContaining(DESCRIPTOR_FIELDS));
          expect(Object.keys(descriptor.default_parameters).sort()).toEqual([
            'frequency_penalty',
            'temperature',
            'top_p',
          ]);
          expect(Object.keys(descriptor.per_request_limits).sort()).toEqual([
            'completion_tokens',
            'prompt_tokens',
          ]);
          expect(descriptor.parameters).toEqual(expect.any(Object));
        }
        for (const pricing of [
          entry.top_provider.pricing,
          ...entry.providers.map((p) => p.pricing),
          ...entry.operations.map((o) => o.pricing),
        ]) {
          expect(Object.keys(pricing).sort()).toEqual([...PRICING_KEYS].sort());
          expect(pricing.unitParam).toEqual(expect.any(String));
        }
      }
    },
  );

  it("names in unitParam what each demo model's prices count", () => {
    const units = loadCatalogue(DEMO, variables).map(({ entry }) => [
      entry.id,
      entry.top_provider.pricing.unitParam,
      entry.operations.map((o) => `${o.id}:${o.pricing.unitParam}`),
    ]);
    expect(units).toEqual([
      ['demo/chat', 'tokens', []],
      ['demo/chat-fallback', 'tokens', []],
      ['demo/embed-small', 'tokens', []],
      ['demo/embed-large', 'tokens', []],
      ['demo/whisper', 'duration', []],
      ['demo/transcribe-diarize', 'duration', []],
      ['demo/image', 'n', []],
      ['demo/image-classic', 'n', []],
      ['demo/video', 'duration', ['extend:duration', 'upscale_1080p:request', 'upscale_4k:request']],
      ['demo/tts', 'characters', []],
    ]);
  });

  it('loads the example catalogue of real providers', () => {
    const models = loadCatalogue(EXAMPLE, { OPENAI_API_KEY: 'sk' });
    expect(models.flatMap((m) => m.routes.map((r) => r.name))).toEqual([
      'OpenAI',
      'OpenRouter',
      'Anthropic',
      'OpenRouter',
    ]);
  });

  it.each([
    [
      'a bad price',
      (c: { models: Array<Record<string, any>> }) =>
        (c.models[0].providers[0].pricing.prompt_per_million = 'cheap'),
      /models\[0\]\.providers\[0\]\.pricing\.prompt_per_million/,
    ],
    [
      'an unknown wire',
      (c: { models: Array<Record<string, any>> }) => (c.models[1].providers[0].routing.wire = 'grpc'),
      /models\[1\]\.providers\[0\]\.routing\.wire/,
    ],
    [
      'an unknown field',
      (c: { models: Array<Record<string, any>> }) => (c.models[0].colour = 'red'),
      /models\[0\]\.colour/,
    ],
    [
      'a duplicate id',
      (c: { models: Array<Record<string, any>> }) => (c.models[1].id = 'demo/chat'),
      /duplicate model id demo\/chat/,
    ],
  ])('refuses %s naming where it is', (_label, mutate, problem) => {
    expect(() => loadCatalogue(withFile(mutate), variables)).toThrow(problem);
  });

  type Catalogue = { models: Array<Record<string, any>> };
  const model = (c: Catalogue, id: string) => c.models.find((m) => m.id === id) as Record<string, any>;

  it.each<[string, (c: Catalogue) => void, RegExp]>([
    [
      'a chat provider without a completion price',
      (c) => (model(c, 'demo/chat').providers[1].pricing.completion_per_million = {}),
      /models\[0\]\.providers\[1\]\.pricing: model demo\/chat has no price for completion_per_million at provider Mock Beta/,
    ],
    [
      'an embedding model whose prompt price is not written',
      (c) => delete model(c, 'demo/embed-large').providers[0].pricing.prompt_per_million,
      /models\[3\]\.providers\[0\]\.pricing\.prompt_per_million: prompt_per_million must be a non-negative decimal string or \{\}/,
    ],
    [
      'an embedding model with an empty prompt price',
      (c) => (model(c, 'demo/embed-small').providers[0].pricing.prompt_per_million = {}),
      /model demo\/embed-small has no price for prompt_per_million/,
    ],
    [
      'a transcription model without stt_per_minute',
      (c) => (model(c, 'demo/whisper').providers[0].pricing.stt_per_minute = {}),
      /model demo\/whisper has no price for stt_per_minute/,
    ],
    [
      'a speech model without tts_per_million_characters',
      (c) => (model(c, 'demo/tts').providers[0].pricing.tts_per_million_characters = {}),
      /model demo\/tts has no price for tts_per_million_characters/,
    ],
    [
      'an image model with neither per_request, image output nor tiers',
      (c) =>
        Object.assign(model(c, 'demo/image-classic').providers[0].pricing, { per_request: {}, tiers: [] }),
      /model demo\/image-classic has no price for image_output_per_million or per_request or tiers/,
    ],
    [
      'a video model with neither video_per_second nor tiers',
      (c) => Object.assign(model(c, 'demo/video').providers[0].pricing, { video_per_second: {}, tiers: [] }),
      /model demo\/video has no price for video_per_second or tiers/,
    ],
    [
      'a model taking dimensions without a maximum',
      (c) => (model(c, 'demo/embed-large').parameters = {}),
      /parameters\.dimensions\.max: model demo\/embed-large takes dimensions/,
    ],
    [
      'an embedding model on the anthropic wire',
      (c) => (model(c, 'demo/embed-small').providers[0].routing.wire = 'anthropic'),
      /embedding model demo\/embed-small needs the openai wire/,
    ],
    [
      'endpoints written in the file, where they would disagree with the type they derive from',
      (c) => (model(c, 'demo/chat').endpoints = ['/v1/chat/completions']),
      /models\[0\]\.endpoints: property endpoints should not exist/,
    ],
    [
      'a per-request limit that is not a count',
      (c) => (model(c, 'demo/chat').providers[1].per_request_limits.prompt_tokens = 1.5),
      /models\[0\]\.providers\[1\]\.per_request_limits\.prompt_tokens: prompt_tokens must be a positive integer or null/,
    ],
    [
      'a provider without parameters',
      (c) => delete model(c, 'demo/whisper').providers[0].parameters,
      /models\[4\]\.providers\[0\]\.parameters: parameters must map parameter names/,
    ],
    [
      'per_request_limits of null',
      (c) => (model(c, 'demo/tts').providers[0].per_request_limits = null),
      /models\[9\]\.providers\[0\]\.per_request_limits: per_request_limits must be an object/,
    ],
    [
      'a per-request limit left out',
      (c) => delete model(c, 'demo/image').providers[0].per_request_limits.completion_tokens,
      /models\[6\]\.providers\[0\]\.per_request_limits\.completion_tokens: completion_tokens must be a positive integer or null/,
    ],
    [
      'a default parameter left out',
      (c) => delete model(c, 'demo/video').providers[0].default_parameters.top_p,
      /models\[8\]\.providers\[0\]\.default_parameters\.top_p: top_p must be a number or null/,
    ],
    [
      'context_length left out',
      (c) => delete model(c, 'demo/embed-small').providers[0].context_length,
      /models\[2\]\.providers\[0\]\.context_length: context_length must be a positive integer or null/,
    ],
    [
      'a pricing without unitParam',
      (c) => delete model(c, 'demo/embed-small').providers[0].pricing.unitParam,
      /models\[2\]\.providers\[0\]\.pricing\.unitParam: unitParam should not be empty/,
    ],
    [
      'a chat pricing counting something other than tokens',
      (c) => (model(c, 'demo/chat').providers[1].pricing.unitParam = 'max_tokens'),
      /models\[0\]\.providers\[1\]\.pricing\.unitParam: must be tokens for chat models \(model demo\/chat at provider Mock Beta\)/,
    ],
    [
      'a video pricing counting a parameter that is no number',
      (c) => (model(c, 'demo/video').providers[0].pricing.unitParam = 'prompt'),
      /models\[8\]\.providers\[0\]\.pricing\.unitParam: must be request or a numeric parameter of the model or operation \(duration\)/,
    ],
    [
      'an operation counting a parameter it does not declare',
      (c) => (model(c, 'demo/video').operations[1].pricing.unitParam = 'duration'),
      /models\[8\]\.operations\[1\]\.pricing\.unitParam: must be request or a numeric parameter of the model or operation \(operation upscale_1080p of model demo\/video\)/,
    ],
  ])('fails closed on %s, naming the model', (_label, mutate, problem) => {
    expect(() => loadCatalogue(withFile(mutate), variables)).toThrow(problem);
  });

  it('refuses a base URL whose variable is not set', () => {
    expect(() => loadCatalogue(DEMO, {})).toThrow(CatalogueError);
    expect(() => loadCatalogue(DEMO, {})).toThrow(/variable MOCK_UPSTREAM_URL is not set/);
  });

  it('refuses a file that is not JSON', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'catalogue-')), 'broken.json');
    writeFileSync(file, '{ nope');
    expect(() => loadCatalogue(file, variables)).toThrow(/Invalid model catalogue .*broken\.json/);
  });
});
