import Decimal from 'decimal.js';
import { DomainError } from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatMessageDto } from '@gw/dto';
import { affordableCompletionTokens, maxChatCost } from '@gw/pricing';
import type { ProviderRoute } from '@gw/catalogue';
import type { UpstreamChatRequest } from '../providers/upstream-chat';
import { estimatedTokens } from './token-estimate';

/** Tokens charged per message for role markers and separators; above what any tokenizer spends. */
export const MESSAGE_OVERHEAD_TOKENS = 8;
export const REQUEST_OVERHEAD_TOKENS = 16;
/** An image part is reserved as this many tokens whatever its size. */
export const IMAGE_PART_TOKENS = 1_600;
/** An image part is estimated as the least a provider counts for one (OpenAI's low detail), so images never inflate an estimate. */
export const IMAGE_PART_ESTIMATED_TOKENS = 85;
/** Used when neither the client nor the catalogue bounds the completion. */
export const DEFAULT_MAX_COMPLETION_TOKENS = 4_096;

/**
 * OpenAI's top-level `reasoning_effort` as the `reasoning.effort` the rest of the pipeline reads,
 * before the alias is applied, so the alias's conflict rule covers both forms.
 */
export function withReasoningEffort(body: ChatCompletionRequestDto): ChatCompletionRequestDto {
  const { reasoning_effort: effort, ...rest } = body;
  if (effort === undefined) return body;
  if (body.reasoning?.effort !== undefined) {
    throw new DomainError(
      'invalid_request',
      'Set the effort once: reasoning_effort or reasoning.effort',
      'reasoning_effort',
    );
  }
  return { ...rest, reasoning: { ...body.reasoning, effort } };
}

export function conversation(body: ChatCompletionRequestDto): ChatMessageDto[] {
  if (body.messages) return body.messages;
  return [{ role: 'user', content: body.prompt ?? '' }];
}

interface PromptContent {
  messages: number;
  /** Every text the prompt sends: contents, names, tool call ids, and tool calls, tools and response_format as JSON. */
  texts: string[];
  images: number;
}

function promptContent(messages: ChatMessageDto[], body: ChatCompletionRequestDto): PromptContent {
  const texts: string[] = [];
  let images = 0;
  for (const message of messages) {
    texts.push(message.name ?? '', message.tool_call_id ?? '');
    if (typeof message.content === 'string') texts.push(message.content);
    if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (part.type === 'text' && 'text' in part) texts.push(part.text);
        else if (part.type === 'image_url') images++;
        else texts.push(JSON.stringify(part));
      }
    }
    if (message.tool_calls) texts.push(JSON.stringify(message.tool_calls));
  }
  if (body.tools) texts.push(JSON.stringify(body.tools));
  if (body.response_format) texts.push(JSON.stringify(body.response_format));
  return { messages: messages.length, texts, images };
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A safe upper bound of the prompt's tokens, for the reservation only: no tokenizer emits more
 * tokens than UTF-8 bytes, so bytes of every text plus a per-message overhead can only over-estimate.
 */
export function promptTokensUpperBound(messages: ChatMessageDto[], body: ChatCompletionRequestDto): number {
  const content = promptContent(messages, body);
  const textBytes = content.texts.reduce((sum, text) => sum + bytes(text), 0);
  return (
    REQUEST_OVERHEAD_TOKENS +
    content.messages * MESSAGE_OVERHEAD_TOKENS +
    textBytes +
    content.images * IMAGE_PART_TOKENS
  );
}

/**
 * A realistic count of the prompt's tokens (see estimatedTokens), used where the provider's count
 * is not known: charging a generation without reported usage, and checking context limits.
 */
export function promptTokensEstimate(messages: ChatMessageDto[], body: ChatCompletionRequestDto): number {
  const content = promptContent(messages, body);
  return (
    content.texts.reduce((sum, text) => sum + estimatedTokens(text), 0) +
    content.images * IMAGE_PART_ESTIMATED_TOKENS
  );
}

export function clientMaxTokens(
  body: Pick<ChatCompletionRequestDto, 'max_tokens' | 'max_completion_tokens'>,
): number | null {
  return body.max_completion_tokens ?? body.max_tokens ?? null;
}

function providerMaxTokens(route: ProviderRoute): number {
  return route.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;
}

/** The completion a provider may produce for this request before the balance is considered. */
export function completionCeiling(route: ProviderRoute, clientMax: number | null): number {
  return Math.min(clientMax ?? Number.MAX_SAFE_INTEGER, providerMaxTokens(route));
}

export interface ReservationAmounts {
  maxAmount: Decimal;
  minAmount: Decimal;
}

/**
 * What to reserve: enough for the dearest candidate, so a fallback never costs more than held.
 * A client max_tokens fixes the amount; otherwise the balance may cover less, down to
 * `minCompletionTokens`.
 */
export function reservationAmounts(
  routes: ProviderRoute[],
  promptBound: number,
  clientMax: number | null,
  minCompletionTokens: number,
): ReservationAmounts {
  const dearest = (tokens: (route: ProviderRoute) => number) =>
    Decimal.max(...routes.map((route) => maxChatCost(route.pricing, promptBound, tokens(route))));
  const maxAmount = dearest((route) => completionCeiling(route, clientMax));
  const minAmount =
    clientMax !== null
      ? maxAmount
      : dearest((route) => Math.min(minCompletionTokens, completionCeiling(route, null)));
  return { maxAmount, minAmount };
}

/** The max_tokens sent upstream: what the client allows, the provider supports and the reservation pays for. */
export function upstreamMaxTokens(
  route: ProviderRoute,
  promptBound: number,
  clientMax: number | null,
  reserved: Decimal,
): number {
  return Math.max(
    1,
    Math.min(
      completionCeiling(route, clientMax),
      affordableCompletionTokens(route.pricing, promptBound, reserved),
    ),
  );
}

type ForwardedUpstreamFields = Pick<
  UpstreamChatRequest,
  'stop' | 'seed' | 'parallel_tool_calls' | 'logit_bias'
>;

/**
 * The OpenAI sampling fields passed on to providers (validated at the edge): `stop` always as a
 * list, and `parallel_tool_calls` only with tools, as OpenAI refuses it without them.
 */
export function forwardedFields(body: ChatCompletionRequestDto): ForwardedUpstreamFields {
  const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? []);
  return {
    ...(stop.length > 0 ? { stop } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(body.parallel_tool_calls !== undefined && body.tools?.length
      ? { parallel_tool_calls: body.parallel_tool_calls }
      : {}),
    ...(body.logit_bias ? { logit_bias: { ...body.logit_bias } } : {}),
  };
}

export function toUpstreamRequest(
  route: ProviderRoute,
  body: ChatCompletionRequestDto,
  messages: ChatMessageDto[],
  maxTokens: number,
): UpstreamChatRequest {
  return {
    model: route.upstreamModel,
    messages,
    max_tokens: maxTokens,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.frequency_penalty !== undefined ? { frequency_penalty: body.frequency_penalty } : {}),
    ...(body.presence_penalty !== undefined ? { presence_penalty: body.presence_penalty } : {}),
    ...(body.tools ? { tools: body.tools } : {}),
    ...(body.tool_choice !== undefined ? { tool_choice: body.tool_choice } : {}),
    ...(body.response_format ? { response_format: body.response_format } : {}),
    ...(body.reasoning?.effort ? { reasoning_effort: body.reasoning.effort } : {}),
    ...(body.web_search_options ? { web_search_options: { ...body.web_search_options } } : {}),
    ...(body.user ? { user: body.user } : {}),
    ...forwardedFields(body),
  };
}
