import { type DomainError } from '@gw/contracts';
import type { CatalogueModel, ProviderRoute } from '@gw/catalogue';
import { planRoutes, type RoutingContext, type RoutingRequest } from './routing';

const ALL = ['temperature', 'max_tokens', 'stream', 'tools', 'tool_choice', 'response_format', 'reasoning'];

function route(
  name: string,
  prompt: string,
  completion: string,
  extra: Partial<ProviderRoute> = {},
): ProviderRoute {
  return {
    name,
    wire: 'openai',
    baseUrl: `http://${name.toLowerCase().replace(/ /g, '-')}`,
    upstreamModel: 'm',
    apiKey: null,
    pricing: { currency: 'RUB', prompt_per_million: prompt, completion_per_million: completion },
    maxPromptTokens: 128_000,
    maxCompletionTokens: 4096,
    supportedParameters: ALL,
    reasoningEfforts: ['low', 'medium', 'high'],
    firstTokenTimeoutMs: null,
    ...extra,
  };
}

const model: CatalogueModel = {
  entry: { id: 'demo/x' } as CatalogueModel['entry'],
  routes: [
    route('Alpha', '150', '600'),
    route('Beta', '200', '800', { supportedParameters: ['temperature', 'max_tokens', 'stream'] }),
    route('Gamma', '100', '900', { reasoningEfforts: ['low', 'medium', 'high', 'xhigh'] }),
  ],
};

/** A short prompt whose provider preferences came from the body. */
const ORDINARY: RoutingContext = { promptTokens: 10, preferencesParam: 'provider' };

const names = (request: RoutingRequest, context = ORDINARY, of = model) =>
  planRoutes(of, request, context).routes.map((r) => r.name);
const fails = (request: RoutingRequest, context = ORDINARY, of = model): DomainError => {
  try {
    planRoutes(of, request, context);
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('planRoutes did not refuse the request');
};

describe('planRoutes', () => {
  it.each<[string, RoutingRequest, string[]]>([
    ['catalogue order by default', {}, ['Alpha', 'Beta', 'Gamma']],
    ['only, whatever the case and spacing', { provider: { only: [' beta', 'GAMMA'] } }, ['Beta', 'Gamma']],
    ['ignore', { provider: { ignore: ['Alpha'] } }, ['Beta', 'Gamma']],
    ['only and ignore together', { provider: { only: ['Alpha', 'Beta'], ignore: ['alpha'] } }, ['Beta']],
    [
      'order first, the rest in catalogue order',
      { provider: { order: ['Gamma'] } },
      ['Gamma', 'Alpha', 'Beta'],
    ],
    [
      'order naming several',
      { provider: { order: ['Gamma', 'Beta', 'Nobody'] } },
      ['Gamma', 'Beta', 'Alpha'],
    ],
    ['order within only', { provider: { only: ['Alpha', 'Gamma'], order: ['Gamma'] } }, ['Gamma', 'Alpha']],
    ['max_price on the prompt price', { provider: { max_price: { prompt: '150' } } }, ['Alpha', 'Gamma']],
    [
      'max_price on both prices',
      { provider: { max_price: { prompt: 200, completion: '800' } } },
      ['Alpha', 'Beta'],
    ],
    [
      'tools only where supported',
      { tools: [{ type: 'function', function: { name: 'f' } }] },
      ['Alpha', 'Gamma'],
    ],
    ['tool_choice only where supported', { tool_choice: 'none' }, ['Alpha', 'Gamma']],
    [
      'a json response_format only where supported',
      { response_format: { type: 'json_object' } },
      ['Alpha', 'Gamma'],
    ],
    ['a text response_format everywhere', { response_format: { type: 'text' } }, ['Alpha', 'Beta', 'Gamma']],
    ['a reasoning effort only where declared', { reasoning: { effort: 'xhigh' } }, ['Gamma']],
    [
      'a provider declaring no efforts takes any',
      { reasoning: { effort: 'low' } },
      ['Alpha', 'Beta', 'Gamma'],
    ],
    ['allow_fallbacks false keeps the first', { provider: { allow_fallbacks: false } }, ['Alpha']],
    [
      'allow_fallbacks false after order',
      { provider: { allow_fallbacks: false, order: ['Beta'] } },
      ['Beta'],
    ],
    ['allow_fallbacks true keeps all', { provider: { allow_fallbacks: true } }, ['Alpha', 'Beta', 'Gamma']],
  ])('%s', (_label, request, expected) => {
    expect(names(request)).toEqual(expected);
  });

  it('answers 400 on provider when the preferences leave no provider of the model', () => {
    expect(fails({ provider: { only: ['Nobody'] } })).toMatchObject({
      code: 'invalid_request',
      param: 'provider',
      status: 400,
    });
    expect(fails({ provider: { ignore: ['Alpha', 'Beta', 'Gamma'] } })).toMatchObject({
      code: 'invalid_request',
      param: 'provider',
    });
  });

  it('names model instead when the alias named the provider', () => {
    expect(fails({ provider: { only: ['Nope'] } }, { ...ORDINARY, preferencesParam: 'model' })).toMatchObject(
      { code: 'invalid_request', param: 'model', status: 400 },
    );
  });

  it('answers 400 on reasoning.effort when no provider of the model declares the effort', () => {
    const error = fails({ reasoning: { effort: 'max' } });
    expect(error).toMatchObject({ code: 'invalid_request', param: 'reasoning.effort', status: 400 });
    expect(error.message).toContain('low, medium, high, xhigh');
  });

  it('answers 503 no_provider_available when capabilities or prices exclude every candidate', () => {
    expect(
      fails({ provider: { only: ['Beta'] }, tools: [{ type: 'function', function: { name: 'f' } }] }),
    ).toMatchObject({
      code: 'no_provider_available',
      status: 503,
      message: expect.stringContaining('supporting tools'),
    });
    expect(fails({ provider: { max_price: { prompt: '99.99' } } })).toMatchObject({
      code: 'no_provider_available',
      message: expect.stringContaining('max_price'),
    });
    expect(fails({ provider: { only: ['Alpha'] }, reasoning: { effort: 'xhigh' } })).toMatchObject({
      code: 'no_provider_available',
    });
  });

  it('counts a price that does not apply as zero', () => {
    const free: CatalogueModel = {
      entry: model.entry,
      routes: [
        route('Free', '0', '0', {
          pricing: { currency: 'RUB', prompt_per_million: {}, completion_per_million: {} },
        }),
      ],
    };
    expect(names({ provider: { max_price: { prompt: 0, completion: 0 } } }, ORDINARY, free)).toEqual([
      'Free',
    ]);
  });

  describe('the size of the request', () => {
    const sized: CatalogueModel = {
      entry: model.entry,
      routes: [
        route('Small', '150', '600', { maxPromptTokens: 8_000, maxCompletionTokens: 1_000 }),
        route('Large', '200', '800', { maxPromptTokens: 128_000, maxCompletionTokens: 4_096 }),
        route('Unbounded', '300', '900', { maxPromptTokens: null, maxCompletionTokens: null }),
      ],
    };
    const prompt = (promptTokens: number): RoutingContext => ({ ...ORDINARY, promptTokens });

    it.each<[string, RoutingRequest, number, string[]]>([
      ['a prompt every provider takes', {}, 8_000, ['Small', 'Large', 'Unbounded']],
      ['a prompt above the smaller limit goes to the others', {}, 8_001, ['Large', 'Unbounded']],
      ['max_tokens within every limit', { max_tokens: 1_000 }, 10, ['Small', 'Large', 'Unbounded']],
      [
        'max_tokens above the smaller limit goes to the others',
        { max_tokens: 1_001 },
        10,
        ['Large', 'Unbounded'],
      ],
      ['max_completion_tokens counts like max_tokens', { max_completion_tokens: 4_097 }, 10, ['Unbounded']],
      ['both limits together', { max_tokens: 2_000 }, 9_000, ['Large', 'Unbounded']],
    ])('%s', (_label, request, promptTokens, expected) => {
      expect(names(request, prompt(promptTokens), sized)).toEqual(expected);
    });

    it.each<[string, RoutingRequest, number, string]>([
      ['messages', {}, 128_001, 'messages'],
      ['prompt', { prompt: 'long' }, 128_001, 'prompt'],
      ['max_tokens', { max_tokens: 4_097 }, 10, 'max_tokens'],
      ['max_completion_tokens', { max_completion_tokens: 4_097 }, 10, 'max_completion_tokens'],
    ])('answers 400 on %s when no candidate takes the request', (_label, request, promptTokens, param) => {
      const error = fails(request, prompt(promptTokens), { ...sized, routes: sized.routes.slice(0, 2) });
      expect(error).toMatchObject({ code: 'invalid_request', status: 400, param });
    });

    it('answers 400 on max_tokens when the providers that take the prompt cannot produce that much', () => {
      const crossed: CatalogueModel = {
        entry: model.entry,
        routes: [
          route('Long', '150', '600', { maxPromptTokens: 128_000, maxCompletionTokens: 1_000 }),
          route('Wordy', '150', '600', { maxPromptTokens: 8_000, maxCompletionTokens: 4_096 }),
        ],
      };
      expect(fails({ max_tokens: 2_000 }, prompt(9_000), crossed)).toMatchObject({
        code: 'invalid_request',
        param: 'max_tokens',
      });
    });

    it('says how long the prompt is estimated and what the model accepts', () => {
      expect(fails({}, prompt(200_000)).message).toBe(
        'The prompt is about 200000 tokens, more than demo/x accepts (at most 128000)',
      );
    });

    it('limits only the candidates the preferences leave', () => {
      expect(fails({ provider: { only: ['Small'] } }, prompt(9_000), sized)).toMatchObject({
        code: 'invalid_request',
        param: 'messages',
      });
      expect(names({ provider: { order: ['Small'], allow_fallbacks: false } }, prompt(9_000), sized)).toEqual(
        ['Large'],
      );
    });
  });
});
