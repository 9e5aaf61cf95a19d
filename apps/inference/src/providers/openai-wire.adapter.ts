import type { ReasoningDetail } from '@gw/contracts';
import type { ChatMessageDto } from '@gw/dto';
import {
  type ChatAdapter,
  type ChatAdapterCall,
  tokenCount,
  type UpstreamChatRequest,
  type UpstreamStreamEvent,
  type UpstreamToolCallDelta,
  type UpstreamUsage,
  withoutZeros,
} from './upstream-chat';
import { providerErrorOf, UpstreamFailure } from '@gw/paid-generation';
import { type SseReading, type UpstreamHttp } from './upstream-http';

/**
 * OpenAI's usage object; `cache_write_tokens` and `image_tokens` are OpenRouter's, and
 * `server_tool_use` counts the searches where the provider ran them (OpenRouter, Mock Alpha).
 */
interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  completion_tokens_details?: {
    reasoning_tokens?: number;
    audio_tokens?: number;
    image_tokens?: number;
  } | null;
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_write_tokens?: number;
    audio_tokens?: number;
    image_tokens?: number;
  } | null;
  server_tool_use?: { web_search_requests?: number } | null;
}

interface OpenAiChunk {
  choices?: Array<{
    delta?: {
      content?: unknown;
      tool_calls?: unknown;
      reasoning?: unknown;
      reasoning_content?: unknown;
      reasoning_details?: unknown;
    };
    finish_reason?: unknown;
  }>;
  usage?: OpenAiUsage | null;
  error?: OpenAiError;
}

interface OpenAiError {
  message?: string;
  type?: string | null;
  code?: string | null;
}

/** The OpenAI chat-completions wire (OpenAI, OpenRouter, Mock Alpha); baseUrl includes `/v1`. */
export class OpenAiWireAdapter implements ChatAdapter {
  constructor(private readonly http: UpstreamHttp) {}

  stream(call: ChatAdapterCall): AsyncIterable<UpstreamStreamEvent[]> {
    const body = { ...toOpenAiRequest(call.request), stream: true, stream_options: { include_usage: true } };
    return this.http.stream(this.url(call), this.headers(call), body, call.signal, OPENAI_STREAM);
  }

  private url(call: ChatAdapterCall): string {
    return `${call.baseUrl}/chat/completions`;
  }

  private headers(call: ChatAdapterCall): Record<string, string> {
    return { authorization: `Bearer ${call.apiKey ?? ''}`.trim() };
  }
}

/** The OpenAI wire's stream: a chunk object per event, then `[DONE]`. */
const OPENAI_STREAM: SseReading<UpstreamStreamEvent> = {
  isLast: (event) => event.data === '[DONE]',
  read: (event) => toStreamEvent(parse(event.data)),
  unfinished: 'Upstream stream ended without [DONE]',
};

/** A provider's chunk as the event it tells; built field by field, since it runs once per token. */
function toStreamEvent(chunk: OpenAiChunk): UpstreamStreamEvent {
  if (chunk.error) throw streamError(chunk.error);
  const choice = chunk.choices?.[0];
  const delta = choice?.delta;
  const event: UpstreamStreamEvent = {};
  if (typeof delta?.content === 'string' && delta.content !== '') event.content = delta.content;
  const reasoning = delta?.reasoning ?? delta?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') event.reasoning = reasoning;
  const details = reasoningDetails(delta?.reasoning_details);
  if (details.length > 0) event.reasoningDetails = details;
  if (Array.isArray(delta?.tool_calls) && delta.tool_calls.length > 0)
    event.toolCalls = toolCallDeltas(delta.tool_calls);
  if (typeof choice?.finish_reason === 'string' && choice.finish_reason !== '')
    event.finishReason = choice.finish_reason;
  const usage = toUsage(chunk.usage);
  if (usage) event.usage = usage;
  return event;
}

/**
 * The request as the OpenAI wire takes it: the effort as `reasoning_effort` (OpenAI refuses the
 * `reasoning` object, an OpenRouter field), and an assistant's reasoning only as the
 * `reasoning_details` OpenRouter takes back; its `reasoning` text is a copy of them.
 */
export function toOpenAiRequest(request: UpstreamChatRequest): Omit<UpstreamChatRequest, 'reasoning'> {
  const { reasoning: _settings, messages, ...rest } = request;
  return { ...rest, messages: messages.map(withoutReasoningText) };
}

function withoutReasoningText(message: ChatMessageDto): ChatMessageDto {
  if (message.reasoning === undefined && message.reasoning_details === undefined) return message;
  const { reasoning: _text, reasoning_details: details, ...rest } = message;
  return message.role === 'assistant' && details?.length ? { ...rest, reasoning_details: details } : rest;
}

const REASONING_FIELDS: Record<string, readonly string[]> = {
  'reasoning.text': ['text', 'signature'],
  'reasoning.encrypted': ['data'],
  'reasoning.summary': ['summary'],
};

/** Reasoning pieces of the three documented types, with only their documented fields, as strings. */
function reasoningDetails(value: unknown): ReasoningDetail[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown): ReasoningDetail[] => {
    const detail = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const fields = REASONING_FIELDS[String(detail.type)];
    if (!fields) return [];
    const kept = Object.fromEntries(
      [...fields, 'id', 'format']
        .filter((field) => typeof detail[field] === 'string')
        .map((f) => [f, detail[f]]),
    );
    if (detail.type === 'reasoning.encrypted' && kept.data === undefined) return [];
    if (detail.type === 'reasoning.summary' && kept.summary === undefined) return [];
    const index = detail.index;
    return [
      {
        type: detail.type,
        ...kept,
        ...(typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? { index } : {}),
      } as ReasoningDetail,
    ];
  });
}

/** Tool-call pieces with only the fields of their documented types: a proxy's mangled piece cannot reach the client as another shape. */
function toolCallDeltas(calls: unknown[]): UpstreamToolCallDelta[] {
  return calls.map((value, position) => {
    const call = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const fn = (typeof call.function === 'object' && call.function !== null ? call.function : {}) as Record<
      string,
      unknown
    >;
    return {
      index: typeof call.index === 'number' && Number.isInteger(call.index) ? call.index : position,
      ...(typeof call.id === 'string' ? { id: call.id } : {}),
      ...(call.type === 'function' ? { type: 'function' as const } : {}),
      ...(typeof fn.name === 'string' || typeof fn.arguments === 'string'
        ? {
            function: {
              ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
              ...(typeof fn.arguments === 'string' ? { arguments: fn.arguments } : {}),
            },
          }
        : {}),
    };
  });
}

/** An error object inside the stream: OpenAI names a rate limit by its code and says "overloaded" in words. */
function streamError(error: OpenAiError): UpstreamFailure {
  const message = typeof error.message === 'string' ? error.message : 'unknown error';
  const names = `${error.code ?? ''} ${error.type ?? ''}`;
  const errorClass = /rate_limit/.test(names)
    ? 'rate_limited'
    : /overloaded/i.test(`${names} ${message}`)
      ? 'overloaded'
      : /invalid_request/.test(names)
        ? 'refused'
        : 'failed';
  return new UpstreamFailure('provider_error', `Upstream stream failed: ${message.slice(0, 300)}`, null, {
    errorClass,
    providerError: providerErrorOf({ error }),
  });
}

function parse(data: string): OpenAiChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new UpstreamFailure('protocol', 'Upstream sent a chunk that is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UpstreamFailure('protocol', 'Upstream sent a chunk that is not a JSON object');
  return value;
}

function toUsage(usage: OpenAiUsage | null | undefined): UpstreamUsage | null {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number')
    return null;
  const prompt = usage.prompt_tokens_details;
  const completion = usage.completion_tokens_details;
  return withoutZeros({
    prompt_tokens: tokenCount(usage.prompt_tokens),
    completion_tokens: tokenCount(usage.completion_tokens),
    cached_prompt_tokens: tokenCount(prompt?.cached_tokens),
    cache_write_prompt_tokens: tokenCount(prompt?.cache_write_tokens),
    audio_prompt_tokens: tokenCount(prompt?.audio_tokens),
    image_prompt_tokens: tokenCount(prompt?.image_tokens),
    reasoning_tokens: tokenCount(completion?.reasoning_tokens),
    audio_completion_tokens: tokenCount(completion?.audio_tokens),
    image_completion_tokens: tokenCount(completion?.image_tokens),
    web_search_requests: tokenCount(usage.server_tool_use?.web_search_requests),
  });
}
