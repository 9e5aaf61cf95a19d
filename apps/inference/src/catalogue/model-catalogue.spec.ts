import { join } from 'node:path';
import { loadCatalogue } from './catalogue-loader';
import { ModelCatalogue } from './model-catalogue';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), { MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010' }),
);
const ids = (query: Parameters<ModelCatalogue['list']>[0]) => catalogue.list(query).data.map((entry) => entry.id);

describe('ModelCatalogue.list', () => {
  it.each<[string, Parameters<ModelCatalogue['list']>[0], string[]]>([
    ['no filter', {}, ['demo/chat', 'demo/chat-fallback', 'demo/embed-small', 'demo/embed-large', 'demo/whisper', 'demo/transcribe-diarize', 'demo/image', 'demo/image-classic', 'demo/video', 'demo/tts']],
    ['a type', { type: 'embedding' }, ['demo/embed-small', 'demo/embed-large']],
    ['an endpoint', { endpoint: '/v1/responses' }, ['demo/chat']],
    ['a type and an endpoint together', { type: 'image', endpoint: '/v2/images/generations' }, ['demo/image', 'demo/image-classic']],
    ['a type and an endpoint no model has both of', { type: 'chat', endpoint: '/v1/embeddings' }, []],
  ])('lists by %s', (_label, query, expected) => {
    expect(ids(query)).toEqual(expected);
  });
});
