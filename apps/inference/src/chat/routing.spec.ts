import { DomainError } from '@gw/contracts';
import type { Pricing } from '@gw/pricing';
import type { CatalogueModel, ProviderRoute } from '../catalogue/catalogue-loader';
import { planRoutes, RoutingRequest } from './routing';

const ALL = ['temperature', 'max_tokens', 'stream', 'tools', 'tool_choice', 'response_format', 'reasoning'];

function route(name: string, prompt: string, completion: string, extra: Partial<ProviderRoute> = {}): ProviderRoute {
  return {
    name,
    wire: 'openai',
    baseUrl: `http://${name.toLowerCase().replace(/ /g, '-')}`,
    upstreamModel: 'm',
    apiKey: null,
    pricing: { currency: 'RUB', prompt_per_million: prompt, completion_per_million: completion } as Pricing,
    maxCompletionTokens: 4096,
    contextLength: 128_000,
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

const names = (request: RoutingRequest) => planRoutes(model, request).routes.map((r) => r.name);
const fails = (request: RoutingRequest): DomainError => {
  try {
    planRoutes(model, request);
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
    ['order first, the rest in catalogue order', { provider: { order: ['Gamma'] } }, ['Gamma', 'Alpha', 'Beta']],
    ['order naming several', { provider: { order: ['Gamma', 'Beta', 'Nobody'] } }, ['Gamma', 'Beta', 'Alpha']],
    ['order within only', { provider: { only: ['Alpha', 'Gamma'], order: ['Gamma'] } }, ['Gamma', 'Alpha']],
    ['max_price on the prompt price', { provider: { max_price: { prompt: '150' } } }, ['Alpha', 'Gamma']],
    ['max_price on both prices', { provider: { max_price: { prompt: 200, completion: '800' } } }, ['Alpha', 'Beta']],
    ['tools only where supported', { tools: [{ type: 'function', function: { name: 'f' } }] }, ['Alpha', 'Gamma']],
    ['tool_choice only where supported', { tool_choice: 'none' }, ['Alpha', 'Gamma']],
    ['a json response_format only where supported', { response_format: { type: 'json_object' } }, ['Alpha', 'Gamma']],
    ['a text response_format everywhere', { response_format: { type: 'text' } }, ['Alpha', 'Beta', 'Gamma']],
    ['a reasoning effort only where declared', { reasoning: { effort: 'xhigh' } }, ['Gamma']],
    ['a provider declaring no efforts takes any', { reasoning: { effort: 'low' } }, ['Alpha', 'Beta', 'Gamma']],
    ['allow_fallbacks false keeps the first', { provider: { allow_fallbacks: false } }, ['Alpha']],
    ['allow_fallbacks false after order', { provider: { allow_fallbacks: false, order: ['Beta'] } }, ['Beta']],
    ['allow_fallbacks true keeps all', { provider: { allow_fallbacks: true } }, ['Alpha', 'Beta', 'Gamma']],
  ])('%s', (_label, request, expected) => {
    expect(names(request)).toEqual(expected);
  });

  it('answers 400 on provider when the preferences leave no provider of the model', () => {
    expect(fails({ provider: { only: ['Nobody'] } })).toMatchObject({ code: 'invalid_request', param: 'provider', status: 400 });
    expect(fails({ provider: { ignore: ['Alpha', 'Beta', 'Gamma'] } })).toMatchObject({ code: 'invalid_request', param: 'provider' });
  });

  it('answers 400 on reasoning.effort when no provider of the model declares the effort', () => {
    const error = fails({ reasoning: { effort: 'max' } });
    expect(error).toMatchObject({ code: 'invalid_request', param: 'reasoning.effort', status: 400 });
    expect(error.message).toContain('low, medium, high, xhigh');
  });

  it('answers 503 no_provider_available when capabilities or prices exclude every candidate', () => {
    expect(fails({ provider: { only: ['Beta'] }, tools: [{ type: 'function', function: { name: 'f' } }] })).toMatchObject({
      code: 'no_provider_available',
      status: 503,
      message: expect.stringContaining('supporting tools'),
    });
    expect(fails({ provider: { max_price: { prompt: '99.99' } } })).toMatchObject({ code: 'no_provider_available', message: expect.stringContaining('max_price') });
    expect(fails({ provider: { only: ['Alpha'] }, reasoning: { effort: 'xhigh' } })).toMatchObject({ code: 'no_provider_available' });
  });

  it('counts a price that does not apply as zero', () => {
    const free: CatalogueModel = { entry: model.entry, routes: [route('Free', '0', '0', { pricing: { currency: 'RUB', prompt_per_million: {}, completion_per_million: {} } as Pricing })] };
    expect(planRoutes(free, { provider: { max_price: { prompt: 0, completion: 0 } } }).routes.map((r) => r.name)).toEqual(['Free']);
  });
});
