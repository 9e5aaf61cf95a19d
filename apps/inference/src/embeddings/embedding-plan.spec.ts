import { type DomainError } from '@gw/contracts';
import { join } from 'node:path';
import type { CatalogueModel } from '@gw/catalogue';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import {
  embeddingData,
  embeddingInputs,
  embeddingPromptBound,
  embeddingRoutes,
  float32Base64,
  maxEmbeddingCost,
  routesTakingInputs,
} from './embedding-plan';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), {
    MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
  }),
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
      return {
        code: (err as DomainError).code,
        param: (err as DomainError).param,
        message: (err as Error).message,
      };
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
    [
      'dimensions on a model that does not take them',
      small,
      1536,
      /demo\/embed-small does not support dimensions/,
    ],
    ['dimensions above the maximum', large, 3073, /at most 3072/],
  ])('refuses %s naming dimensions', (_label, model, dimensions, message) => {
    expect(refusal(() => embeddingRoutes(model, dimensions))).toEqual({
      code: 'invalid_request',
      param: 'dimensions',
      message: expect.stringMatching(message),
    });
  });
});

describe('routesTakingInputs', () => {
  // demo/embed-small: one provider with context_length 8192.
  const refusal = (input: string | string[], model: CatalogueModel = small) => {
    try {
      routesTakingInputs(model, model.routes, input);
      return null;
    } catch (err) {
      return {
        code: (err as DomainError).code,
        param: (err as DomainError).param,
        message: (err as Error).message,
      };
    }
  };

  it.each<[string, string | string[]]>([
    ['a short text', 'hello'],
    ['8192 tokens exactly (four bytes each)', 'a'.repeat(8192 * 4)],
    [
      'many inputs each within the limit, whatever their sum',
      Array.from({ length: 20 }, () => 'a'.repeat(30_000)),
    ],
  ])('takes %s', (_label, input) => {
    expect(refusal(input)).toBeNull();
  });

  it.each<[string, string | string[], string, RegExp]>([
    [
      'one token over the limit',
      'a'.repeat(8193 * 4),
      'input',
      /input is about 8193 tokens, more than demo\/embed-small takes in one input \(at most 8192\)/,
    ],
    // The audit's request: 30 000 000 bytes were taken as 7 500 000 tokens and charged.
    ['30 000 000 bytes', 'a'.repeat(30_000_000), 'input', /about 7500000 tokens/],
    [
      '9000 one-letter words: at least a token each, as for chat',
      'a '.repeat(9000),
      'input',
      /about 9000 tokens/,
    ],
    [
      'the second of three inputs',
      ['fine', 'a'.repeat(40_000), 'a'.repeat(50_000)],
      'input[1]',
      /input\[1\] is about 10000 tokens/,
    ],
  ])('refuses %s, naming the input', (_label, input, param, message) => {
    expect(refusal(input)).toEqual({
      code: 'invalid_request',
      param,
      message: expect.stringMatching(message),
    });
  });

  it('drops the providers that cannot take the longest input and keeps those that can', () => {
    const [route] = small.routes;
    const model = {
      entry: small.entry,
      routes: [
        { ...route, name: 'Short', maxPromptTokens: 100 },
        { ...route, name: 'Unbounded', maxPromptTokens: null },
        { ...route, name: 'Long', maxPromptTokens: 1000 },
      ],
    };
    expect(routesTakingInputs(model, model.routes, ['a'.repeat(800)]).map((r) => r.name)).toEqual([
      'Unbounded',
      'Long',
    ]);
    expect(routesTakingInputs(model, model.routes, ['a'.repeat(8000)]).map((r) => r.name)).toEqual([
      'Unbounded',
    ]);
    const bounded = { ...model, routes: model.routes.filter((r) => r.maxPromptTokens !== null) };
    expect(refusal(['x', 'a'.repeat(8000)], bounded)).toMatchObject({
      param: 'input[1]',
      message: expect.stringContaining('at most 1000'),
    });
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
    expect(float32Base64([1, -2, 0.5])).toBe(
      Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f]).toString('base64'),
    );
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
    expect(embeddingData([[1]], 'base64')).toEqual([
      { object: 'embedding', embedding: 'AACAPw==', index: 0 },
    ]);
  });
});
