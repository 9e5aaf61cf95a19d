import { DomainError } from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatMessageDto } from '@gw/dto';
import type { ProviderRoute } from '@gw/catalogue';
import type { UpstreamChatRequest, UpstreamReasoning } from '../providers/upstream-chat';
import { estimatedTokens, textWidth } from './token-estimate';

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
  return { texts, images };
}

/**
 * A realistic count of the prompt's tokens (see estimatedTokens), used where the provider's count
 * is not known: sizing the first hold, charging a generation without reported usage, and checking
 * context limits.
 */
export function promptTokensEstimate(messages: ChatMessageDto[], body: ChatCompletionRequestDto): number {
  const content = promptContent(messages, body);
  return (
    content.texts.reduce((sum, text) => sum + estimatedTokens(text), 0) +
    content.images * IMAGE_PART_ESTIMATED_TOKENS
  );
}

/** The kind of script the prompt's texts are mostly in (see textWidth). */
export function promptTextWidth(messages: ChatMessageDto[], body: ChatCompletionRequestDto): number {
  return textWidth(promptContent(messages, body).texts);
}

export function clientMaxTokens(
  body: Pick<ChatCompletionRequestDto, 'max_tokens' | 'max_completion_tokens'>,
): number | null {
  return body.max_completion_tokens ?? body.max_tokens ?? null;
}

function providerMaxTokens(route: ProviderRoute): number {
  return route.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;
}

/**
 * The completion a provider may produce for this request: what the client allows and the provider
 * supports. It is the upstream max_tokens; the balance never lowers it, the hold grows instead.
 */
export function completionCeiling(route: ProviderRoute, clientMax: number | null): number {
  return Math.min(clientMax ?? Number.MAX_SAFE_INTEGER, providerMaxTokens(route));
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

function reasoningSettings(reasoning: NonNullable<ChatCompletionRequestDto['reasoning']>): UpstreamReasoning {
  return {
    ...(reasoning.effort !== undefined ? { effort: reasoning.effort } : {}),
    ...(reasoning.max_tokens !== undefined ? { max_tokens: reasoning.max_tokens } : {}),
    ...(reasoning.enabled !== undefined ? { enabled: reasoning.enabled } : {}),
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
    ...(body.reasoning ? { reasoning: reasoningSettings(body.reasoning) } : {}),
    ...(body.web_search_options ? { web_search_options: { ...body.web_search_options } } : {}),
    ...(body.user ? { user: body.user } : {}),
    ...forwardedFields(body),
  };
}
