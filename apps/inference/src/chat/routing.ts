import Decimal from 'decimal.js';
import { DomainError } from '@gw/contracts';
import type { ChatCompletionRequestDto, MaxPriceDto } from '@gw/dto';
import type { Pricing } from '@gw/pricing';
import type { CatalogueModel, ProviderRoute } from '@gw/catalogue';
import { clientMaxTokens } from './chat-plan';

/** The routing-relevant part of a chat request, after the model alias was applied. */
export type RoutingRequest = Pick<
  ChatCompletionRequestDto,
  | 'provider'
  | 'tools'
  | 'tool_choice'
  | 'response_format'
  | 'reasoning'
  | 'web_search_options'
  | 'prompt'
  | 'max_tokens'
  | 'max_completion_tokens'
>;

/** What routing needs to know beyond the body's fields. */
export interface RoutingContext {
  /** The prompt's realistic token estimate (not the reservation's upper bound, which would refuse ordinary prompts). */
  promptTokens: number;
  /** Where `provider.only` came from: the model alias (`model`) or the body (`provider`); an error about it names that. */
  preferencesParam: 'model' | 'provider';
}

export interface RoutePlan {
  /** The providers to try, in order; the first that answers serves the request. */
  routes: ProviderRoute[];
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Which providers serve a request, in which order:
 * 1. `only` keeps the named providers, `ignore` drops the named ones (names compare case-insensitively).
 *    Nothing left is a 400 on `provider` (on `model` when the alias named the provider): the
 *    preferences can never be met for this model.
 * 2. A requested reasoning effort must be one the model declares (some provider lists it), else 400 on
 *    `reasoning.effort`; providers that declare efforts without it are dropped.
 * 3. The request must fit the provider: the prompt's estimated tokens within its prompt limit
 *    (context_length and per_request_limits.prompt_tokens), the client's max_tokens within its
 *    completion limit. Nothing left is a 400 on `messages`/`prompt` or on the max tokens field, as
 *    no provider of the model could ever take the request as it is.
 * 4. Providers must declare every parameter the request relies on (`tools`, `tool_choice`,
 *    `response_format` other than text, `web_search_options`) in supported_parameters, and stay within
 *    `max_price` (each given ceiling compared with the provider's price per million of that kind; a price
 *    that does not apply counts as 0). Nothing left is a 503 `no_provider_available`.
 * 5. `order` puts the named providers first in that order, the others follow in catalogue order.
 * 6. `allow_fallbacks: false` keeps only the first.
 */
export function planRoutes(
  model: CatalogueModel,
  request: RoutingRequest,
  context: RoutingContext,
): RoutePlan {
  const preferences = request.provider;
  let routes = model.routes;
  if (preferences?.only)
    routes = routes.filter((route) => preferences.only?.some((name) => sameName(name, route.name)));
  if (preferences?.ignore)
    routes = routes.filter((route) => !preferences.ignore?.some((name) => sameName(name, route.name)));
  if (routes.length === 0) {
    const known = model.routes.map((route) => route.name).join(', ');
    throw new DomainError(
      'invalid_request',
      `No provider of ${model.entry.id} matches the provider preferences (its providers: ${known})`,
      context.preferencesParam,
    );
  }

  const effort = request.reasoning?.effort;
  if (effort !== undefined) {
    if (!model.routes.some((route) => supportsEffort(route, effort))) {
      const declared = [...new Set(model.routes.flatMap((route) => route.reasoningEfforts ?? []))].join(', ');
      throw new DomainError(
        'invalid_request',
        `${model.entry.id} does not support reasoning effort ${effort} (supported: ${declared})`,
        'reasoning.effort',
      );
    }
    routes = routes.filter((route) => supportsEffort(route, effort));
  }
  routes = fittingRoutes(model, routes, request, context.promptTokens);
  const needed = requiredParameters(request);
  routes = routes.filter((route) =>
    needed.every((parameter) => route.supportedParameters.includes(parameter)),
  );
  const ceiling = preferences?.max_price;
  if (ceiling) routes = routes.filter((route) => withinPrice(route.pricing, ceiling));
  if (routes.length === 0) {
    const reasons = [
      ...(needed.length > 0 ? [`supporting ${needed.join(', ')}`] : []),
      ...(ceiling ? ['within max_price'] : []),
      ...(effort ? [`with reasoning effort ${effort}`] : []),
    ];
    throw new DomainError(
      'no_provider_available',
      `No provider of ${model.entry.id} is available ${reasons.join(' and ') || 'for this request'}`,
    );
  }

  if (preferences?.order) {
    const rank = (route: ProviderRoute) => {
      const index = preferences.order?.findIndex((name) => sameName(name, route.name)) ?? -1;
      return index === -1 ? Number.MAX_SAFE_INTEGER : index;
    };
    routes = [...routes].sort((a, b) => rank(a) - rank(b));
  }
  return { routes: preferences?.allow_fallbacks === false ? routes.slice(0, 1) : routes };
}

/** The candidates that take a prompt and a completion this long; none is a 400 on the field that is too long. */
function fittingRoutes(
  model: CatalogueModel,
  routes: ProviderRoute[],
  request: RoutingRequest,
  promptTokens: number,
): ProviderRoute[] {
  // No candidate left already (an effort no preferred provider declares) is the 503 that follows.
  if (routes.length === 0) return routes;
  const within = (limit: number | null, tokens: number) => limit === null || tokens <= limit;
  const promptFits = routes.filter((route) => within(route.maxPromptTokens, promptTokens));
  if (promptFits.length === 0) {
    const most = Math.max(...routes.map((route) => route.maxPromptTokens ?? 0));
    const param = request.prompt !== undefined ? 'prompt' : 'messages';
    throw new DomainError(
      'invalid_request',
      `The prompt is about ${promptTokens} tokens, more than ${model.entry.id} accepts (at most ${most})`,
      param,
    );
  }
  const maxTokens = clientMaxTokens(request);
  if (maxTokens === null) return promptFits;
  const completionFits = promptFits.filter((route) => within(route.maxCompletionTokens, maxTokens));
  if (completionFits.length === 0) {
    const most = Math.max(...promptFits.map((route) => route.maxCompletionTokens ?? 0));
    const param = request.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
    throw new DomainError(
      'invalid_request',
      `A completion of up to ${maxTokens} tokens is more than ${model.entry.id} can produce (at most ${most})`,
      param,
    );
  }
  return completionFits;
}

function supportsEffort(route: ProviderRoute, effort: string): boolean {
  return route.reasoningEfforts === null || route.reasoningEfforts.includes(effort);
}

/** The supported_parameters a provider must list to serve this request as asked. */
export function requiredParameters(request: RoutingRequest): string[] {
  const needed: string[] = [];
  if (request.tools && request.tools.length > 0) needed.push('tools');
  if (request.tool_choice !== undefined) needed.push('tool_choice');
  if (request.response_format && request.response_format.type !== 'text') needed.push('response_format');
  if (request.web_search_options) needed.push('web_search_options');
  return needed;
}

function withinPrice(pricing: Pricing, ceiling: MaxPriceDto): boolean {
  const fits = (limit: string | number | undefined, price: unknown) =>
    limit === undefined ||
    new Decimal(typeof price === 'string' ? price : 0).lessThanOrEqualTo(new Decimal(limit));
  return (
    fits(ceiling.prompt, pricing.prompt_per_million) &&
    fits(ceiling.completion, pricing.completion_per_million)
  );
}
