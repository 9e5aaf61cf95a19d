import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogueError, loadCatalogue } from './catalogue-loader';

const DEMO = join(__dirname, '../../../../config/catalogue.demo.json');
const EXAMPLE = join(__dirname, '../../../../config/catalogue.example.json');
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
    const endpoints = Object.fromEntries(loadCatalogue(DEMO, variables).map((m) => [m.entry.id, m.entry.endpoints]));
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

  it.each<[string, Record<string, unknown>, { maxPromptTokens: number | null; maxCompletionTokens: number | null }]>([
    ['the lower of context_length and per_request_limits', { context_length: 200_000, max_completion_tokens: 64_000, per_request_limits: { prompt_tokens: 128_000, completion_tokens: 4_096 } }, { maxPromptTokens: 128_000, maxCompletionTokens: 4_096 }],
    ['the model limits without per-request limits', { context_length: 8_192, max_completion_tokens: 1_024, per_request_limits: null }, { maxPromptTokens: 8_192, maxCompletionTokens: 1_024 }],
    ['a per-request limit alone', { context_length: null, max_completion_tokens: null, per_request_limits: { prompt_tokens: 1_000, completion_tokens: null } }, { maxPromptTokens: 1_000, maxCompletionTokens: null }],
  ])('limits a request to %s', (_label, limits, expected) => {
    const file = withFile((c) => Object.assign(c.models[0].providers[0], limits));
    expect(loadCatalogue(file, variables)[0].routes[0]).toMatchObject(expected);
  });

  it('loads the example catalogue of real providers', () => {
    const models = loadCatalogue(EXAMPLE, { OPENAI_API_KEY: 'sk' });
    expect(models.flatMap((m) => m.routes.map((r) => r.name))).toEqual(['OpenAI', 'OpenRouter', 'Anthropic', 'OpenRouter']);
  });

  it.each([
    ['a bad price', (c: { models: Array<Record<string, any>> }) => (c.models[0].providers[0].pricing.prompt_per_million = 'cheap'), /models\[0\]\.providers\[0\]\.pricing\.prompt_per_million/],
    ['an unknown wire', (c: { models: Array<Record<string, any>> }) => (c.models[1].providers[0].routing.wire = 'grpc'), /models\[1\]\.providers\[0\]\.routing\.wire/],
    ['an unknown field', (c: { models: Array<Record<string, any>> }) => (c.models[0].colour = 'red'), /models\[0\]\.colour/],
    ['a duplicate id', (c: { models: Array<Record<string, any>> }) => (c.models[1].id = 'demo/chat'), /duplicate model id demo\/chat/],
  ])('refuses %s naming where it is', (_label, mutate, problem) => {
    expect(() => loadCatalogue(withFile(mutate), variables)).toThrow(problem);
  });

  type Catalogue = { models: Array<Record<string, any>> };
  const model = (c: Catalogue, id: string) => c.models.find((m) => m.id === id) as Record<string, any>;

  it.each<[string, (c: Catalogue) => void, RegExp]>([
    ['a chat provider without a completion price', (c) => (model(c, 'demo/chat').providers[1].pricing.completion_per_million = {}), /models\[0\]\.providers\[1\]\.pricing: model demo\/chat has no price for completion_per_million at provider Mock Beta/],
    ['an embedding model whose prompt price is absent', (c) => delete model(c, 'demo/embed-large').providers[0].pricing.prompt_per_million, /model demo\/embed-large has no price for prompt_per_million/],
    ['an embedding model with an empty prompt price', (c) => (model(c, 'demo/embed-small').providers[0].pricing.prompt_per_million = {}), /model demo\/embed-small has no price for prompt_per_million/],
    ['a transcription model without stt_per_minute', (c) => (model(c, 'demo/whisper').providers[0].pricing.stt_per_minute = {}), /model demo\/whisper has no price for stt_per_minute/],
    ['a speech model without tts_per_million_characters', (c) => (model(c, 'demo/tts').providers[0].pricing.tts_per_million_characters = {}), /model demo\/tts has no price for tts_per_million_characters/],
    [
      'an image model with neither per_request, image output nor tiers',
      (c) => Object.assign(model(c, 'demo/image-classic').providers[0].pricing, { per_request: {}, tiers: [] }),
      /model demo\/image-classic has no price for image_output_per_million or per_request or tiers/,
    ],
    ['a video model with neither video_per_second nor tiers', (c) => Object.assign(model(c, 'demo/video').providers[0].pricing, { video_per_second: {}, tiers: [] }), /model demo\/video has no price for video_per_second or tiers/],
    ['a model taking dimensions without a maximum', (c) => (model(c, 'demo/embed-large').parameters = {}), /parameters\.dimensions\.max: model demo\/embed-large takes dimensions/],
    ['an embedding model on the anthropic wire', (c) => (model(c, 'demo/embed-small').providers[0].routing.wire = 'anthropic'), /embedding model demo\/embed-small needs the openai wire/],
    ['endpoints written in the file, where they would disagree with the type they derive from', (c) => (model(c, 'demo/chat').endpoints = ['/v1/chat/completions']), /models\[0\]\.endpoints: property endpoints should not exist/],
    ['a per-request limit that is not a count', (c) => (model(c, 'demo/chat').providers[1].per_request_limits.prompt_tokens = 1.5), /models\[0\]\.providers\[1\]\.per_request_limits\.prompt_tokens: must be a positive integer/],
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
