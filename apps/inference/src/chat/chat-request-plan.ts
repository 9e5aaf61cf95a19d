import { applyModelAlias, ModelAliasError, parseModelAlias } from '@gw/alias';
import { DomainError } from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatCompletionRpcMessageDto } from '@gw/dto';
import { endpointOfApiType, type ModelCatalogue } from '@gw/catalogue';
import type { HoldAmounts } from '@gw/paid-generation';
import type { ChatGeneration } from './chat-generation';
import {
  clientMaxTokens,
  conversation,
  promptTextWidth,
  promptTokensEstimate,
  withReasoningEffort,
} from './chat-plan';
import type { HoldEstimates } from './hold-estimates';
import { initialHold } from './hold-sizing';
import { planRoutes } from './routing';

/** The chat-style endpoints on which the model alias notation is accepted. */
const ALIAS_API_TYPES = new Set(['chat_completions', 'responses', 'messages']);

/** A chat generation before its hold is open: what it asks of which providers, and the first hold it needs. */
export interface ChatRequestPlan {
  generation: Omit<ChatGeneration, 'hold'>;
  firstHold: HoldAmounts;
}

/**
 * Resolves a chat request: its model (alias applied where the endpoint takes one), the providers in
 * the order they are tried, the prompt's estimates and the first hold, sized from what this process
 * learned of the first provider's counts.
 */
export function planChatRequest(
  catalogue: ModelCatalogue,
  holdEstimates: HoldEstimates,
  request: ChatCompletionRpcMessageDto,
  responseMode: ChatGeneration['responseMode'],
  id: string,
): ChatRequestPlan {
  const endpoint = endpointOfApiType(request.apiType);
  if (!endpoint) throw new DomainError('invalid_request', `Unknown apiType ${request.apiType}`, 'apiType');
  const body = withAlias(request);
  const model = catalogue.servingModel(body.model, endpoint);
  const messages = conversation(body);
  const promptEstimate = promptTokensEstimate(messages, body);
  const { routes } = planRoutes(model, body, {
    promptTokens: promptEstimate,
    preferencesParam: providerFromAlias(request) ? 'model' : 'provider',
  });
  const clientMax = clientMaxTokens(body);
  const textWidth = promptTextWidth(messages, body);
  const counts = holdEstimates.of(model.entry.id, routes[0].name, textWidth);
  const heldPromptTokens = counts.promptTokens(promptEstimate, messages.length);
  return {
    generation: {
      id,
      request,
      body,
      responseMode,
      model,
      routes,
      messages,
      promptEstimate,
      heldPromptTokens,
      promptTextWidth: textWidth,
      clientMax,
    },
    firstHold: initialHold(
      routes[0],
      heldPromptTokens,
      counts.expectedCompletionTokens(),
      clientMax,
      counts.leastCompletionTokens(),
    ),
  };
}

/** The body as if the alias had been written as body fields; other endpoints take `@` literally (an unknown model). */
function withAlias(request: ChatCompletionRpcMessageDto): ChatCompletionRequestDto {
  const body = withReasoningEffort(request.body);
  if (!ALIAS_API_TYPES.has(request.apiType)) return body;
  try {
    return applyModelAlias(
      body as ChatCompletionRequestDto & {
        provider?: Record<string, unknown>;
        reasoning?: Record<string, unknown>;
      },
    );
  } catch (err) {
    if (err instanceof ModelAliasError) throw new DomainError('invalid_request', err.message, 'model');
    throw err;
  }
}

/** Whether `provider.only` is the alias's `provider=`: the body cannot also set it, the alias refuses that. */
function providerFromAlias(request: ChatCompletionRpcMessageDto): boolean {
  return ALIAS_API_TYPES.has(request.apiType) && parseModelAlias(request.body.model).provider !== undefined;
}
