import { join } from 'node:path';
import { loadCatalogue } from './catalogue-loader';
import { ModelCatalogue } from './model-catalogue';
import { endpointOfApiType, type ModelEndpoint } from './model-endpoints';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../config/catalogue.demo.json'), {
    MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
  }),
);
const ids = (query: Parameters<ModelCatalogue['list']>[0]) =>
  catalogue.list(query).data.map((entry) => entry.id);

describe('ModelCatalogue.list', () => {
  it.each<[string, Parameters<ModelCatalogue['list']>[0], string[]]>([
    [
      'no filter',
      {},
      [
        'demo/chat',
        'demo/chat-fallback',
        'demo/embed-small',
        'demo/embed-large',
        'demo/whisper',
        'demo/transcribe-diarize',
        'demo/image',
        'demo/image-classic',
        'demo/video',
        'demo/tts',
      ],
    ],
    ['a type', { type: 'embedding' }, ['demo/embed-small', 'demo/embed-large']],
    ['an endpoint', { endpoint: '/v1/messages' }, ['demo/chat', 'demo/chat-fallback']],
    [
      'a type and an endpoint together',
      { type: 'image', endpoint: '/v2/images/generations' },
      ['demo/image', 'demo/image-classic'],
    ],
    ['a type and an endpoint no model has both of', { type: 'chat', endpoint: '/v1/embeddings' }, []],
  ])('lists by %s', (_label, query, expected) => {
    expect(ids(query)).toEqual(expected);
  });
});

describe('ModelCatalogue.servingModel', () => {
  it.each<[string, ModelEndpoint]>([
    ['demo/chat-fallback', '/v1/responses'],
    ['demo/chat-fallback', '/v1/messages'],
    ['demo/chat', '/v1/chat/completions'],
    ['demo/embed-small', '/v1/embeddings'],
    ['demo/whisper', '/v1/audio/transcriptions'],
  ])('serves %s on %s, as its endpoints list', (id, endpoint) => {
    const model = catalogue.servingModel(id, endpoint);
    expect(model.entry.id).toBe(id);
    expect(model.entry.endpoints).toContain(endpoint);
  });

  it.each<[string, ModelEndpoint, string]>([
    ['demo/nope', '/v1/chat/completions', 'The model demo/nope does not exist'],
    [
      'demo/embed-small',
      '/v1/messages',
      'The model demo/embed-small is not served on /v1/messages (its endpoints: /v1/embeddings)',
    ],
    ['demo/chat', '/v1/embeddings', 'The model demo/chat is not served on /v1/embeddings'],
    ['demo/whisper', '/v1/chat/completions', 'The model demo/whisper is not served on /v1/chat/completions'],
  ])('refuses %s on %s with 400 on model', (id, endpoint, message) => {
    expect(() => catalogue.servingModel(id, endpoint)).toThrow(
      expect.objectContaining({
        code: 'invalid_model',
        status: 400,
        param: 'model',
        message: expect.stringContaining(message),
      }),
    );
  });
});

describe('endpointOfApiType', () => {
  it.each<[string, ModelEndpoint | null]>([
    ['chat_completions', '/v1/chat/completions'],
    ['responses', '/v1/responses'],
    ['messages', '/v1/messages'],
    ['embeddings', '/v1/embeddings'],
    ['toString', null],
    ['completions', null],
  ])('maps %s to %s', (apiType, endpoint) => {
    expect(endpointOfApiType(apiType)).toBe(endpoint);
  });
});
