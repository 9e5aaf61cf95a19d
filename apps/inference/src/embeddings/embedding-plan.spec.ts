import { DomainError } from '@gw/contracts';
import { join } from 'node:path';
import { loadCatalogue } from '../catalogue/catalogue-loader';
import { ModelCatalogue } from '../catalogue/model-catalogue';
import { embeddingData, embeddingInputs, embeddingPromptBound, embeddingRoutes, float32Base64, maxEmbeddingCost } from './embedding-plan';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), { MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010' }),
);
const small = catalogue.find('demo/embed-small')!;
const large = catalogue.find('demo/embed-large')!;

describe('embeddingPromptBound', () => {
  it.each<[string, string[], number]>([
    ['one ASCII input: bytes plus 8', ['hello'], 13],
    ['several inputs add up', ['a', 'bc'], 19],
    // "привет" is 12 UTF-8 bytes
    ['non-ASCII text by its UTF-8 bytes', ['привет'], 20],
  ])('bounds %s', (_label, inputs, expected) => {
    expect(embeddingPromptBound(inputs)).toBe(expected);
  });

  it('turns a string input into one input', () => {
    expect(embeddingInputs('x')).toEqual(['x']);
    expect(embeddingInputs(['x', 'y'])).toEqual(['x', 'y']);
  });
});

describe('embeddingRoutes', () => {
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (err) {
      return { code: (err as DomainError).code, param: (err as DomainError).param, message: (err as Error).message };
    }
    return null;
  };

  it.each<[string, typeof large, number | undefined, number]>([
    ['every provider without dimensions', small, undefined, 1],
    ['the providers taking dimensions', large, 256, 1],
    ['the maximum itself', large, 3072, 1],
  ])('keeps %s', (_label, model, dimensions, expected) => {
    expect(embeddingRoutes(model, dimensions)).toHaveLength(expected);
  });

  it.each<[string, typeof large, number, RegExp]>([
    ['dimensions on a model that does not take them', small, 1536, /demo\/embed-small does not support dimensions/],
    ['dimensions above the maximum', large, 3073, /at most 3072/],
  ])('refuses %s naming dimensions', (_label, model, dimensions, message) => {
    expect(refusal(() => embeddingRoutes(model, dimensions))).toEqual({ code: 'invalid_request', param: 'dimensions', message: expect.stringMatching(message) });
  });
});

describe('maxEmbeddingCost', () => {
  it('prices the bound at the prompt price', () => {
    // 1000 tokens × 13 RUB per million
    expect(maxEmbeddingCost(large.routes, 1000).toString()).toBe('0.013');
  });
});

describe('float32Base64', () => {
  it('encodes little-endian float32 bytes as OpenAI does', () => {
    // 1.0f = 00 00 80 3f, -2.0f = 00 00 00 c0, 0.5f = 00 00 00 3f
    expect(float32Base64([1, -2, 0.5])).toBe(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f]).toString('base64'));
  });

  it('decodes back through a Float32Array', () => {
    const vector = [0.25, -0.125, 3];
    const bytes = Buffer.from(float32Base64(vector), 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4))).toEqual(vector);
  });

  it('gives one item per vector with its index in either format', () => {
    expect(embeddingData([[1], [2]], 'float')).toEqual([
      { object: 'embedding', embedding: [1], index: 0 },
      { object: 'embedding', embedding: [2], index: 1 },
    ]);
    expect(embeddingData([[1]], 'base64')).toEqual([{ object: 'embedding', embedding: 'AACAPw==', index: 0 }]);
  });
});
