import { type AnthropicBlockStart, type AnthropicDelta, AnswerBlocks } from './anthropic-answer-blocks';
import { toAnthropicRequest } from './anthropic-request';
import {
  type ChatAdapter,
  type ChatAdapterCall,
  tokenCount,
  type UpstreamStreamEvent,
  type UpstreamUsage,
  withoutZeros,
} from './upstream-chat';
import type { EventSourceMessage } from 'eventsource-parser';
import { type ProviderErrorClass, providerErrorOf, UpstreamFailure } from '@gw/paid-generation';
import { type SseReading, type UpstreamHttp } from './upstream-http';

const ANTHROPIC_VERSION = '2023-06-01';

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/**
 * Anthropic's usage object: input_tokens excludes what was read from and written to the cache;
 * `cache_creation` splits the writes by how long they are kept; `server_tool_use` counts the
 * searches Anthropic ran. message_delta repeats its counts, cumulative, with the searches.
 */
interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
  server_tool_use?: { web_search_requests?: number } | null;
}

/** The Anthropic messages wire (Anthropic, Mock Beta); baseUrl excludes `/v1`. Translates from and to the gateway's chat shape. */
export class AnthropicWireAdapter implements ChatAdapter {
  constructor(private readonly http: UpstreamHttp) {}

  stream(call: ChatAdapterCall): AsyncIterable<UpstreamStreamEvent[]> {
    const body = { ...toAnthropicRequest(call.request), stream: true };
    return this.http.stream(this.url(call), this.headers(call), body, call.signal, new AnthropicStream());
  }

  private url(call: ChatAdapterCall): string {
    return `${call.baseUrl}/v1/messages`;
  }

  private headers(call: ChatAdapterCall): Record<string, string> {
    return { 'x-api-key': call.apiKey ?? '', 'anthropic-version': ANTHROPIC_VERSION };
  }
}

/** One answer's events on the Anthropic wire: the prompt's usage of message_start is kept for message_delta's. */
class AnthropicStream implements SseReading<UpstreamStreamEvent> {
  readonly unfinished = 'Upstream stream ended without message_stop';
  private input: AnthropicUsage = {};
  private readonly blocks = new AnswerBlocks();

  /** Anthropic names each event; `message_stop` is the last of an answer. */
  isLast(event: EventSourceMessage): boolean {
    return event.event === 'message_stop';
  }

  read(event: EventSourceMessage): UpstreamStreamEvent | null {
    const data = parse(event.data);
    switch (event.event === 'error' ? 'error' : data.type) {
      case 'message_start': {
        this.input = data.message?.usage ?? {};
        const prompt = toUsage(this.input, 0)?.prompt_tokens;
        return prompt === undefined ? null : { promptTokens: prompt };
      }
      case 'content_block_start':
        return this.blocks.start(data.index ?? 0, data.content_block);
      case 'content_block_delta':
        return this.blocks.delta(data.index ?? 0, data.delta);
      case 'message_delta': {
        const usage = toUsage(
          { ...this.input, ...definedFields(data.usage) },
          tokenCount(data.usage?.output_tokens),
        );
        return { finishReason: finishReason(data.delta?.stop_reason), ...(usage ? { usage } : {}) };
      }
      case 'error':
        throw streamError(data.error);
      case undefined:
      default:
        // ping, content_block_stop, untyped events and types added later carry nothing a chat needs.
        return null;
    }
  }
}

interface AnthropicStreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage };
  content_block?: AnthropicBlockStart;
  delta?: AnthropicDelta;
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

/** Anthropic's error types that say when to come back rather than what went wrong. */
const ERROR_CLASSES: Record<string, ProviderErrorClass> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limited',
  invalid_request_error: 'refused',
  authentication_error: 'unauthorized',
  permission_error: 'unauthorized',
};

/** Anthropic's `error` event: under load an `overloaded_error` arrives inside an answer that began with 200. */
function streamError(error: AnthropicStreamEvent['error']): UpstreamFailure {
  const message = typeof error?.message === 'string' ? error.message : 'unknown error';
  return new UpstreamFailure('provider_error', `Upstream stream failed: ${message.slice(0, 300)}`, null, {
    errorClass: ERROR_CLASSES[error?.type ?? ''] ?? 'failed',
    providerError: providerErrorOf({ error }),
  });
}

function parse(data: string): AnthropicStreamEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new UpstreamFailure('protocol', 'Upstream sent an event that is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UpstreamFailure('protocol', 'Upstream sent an event that is not a JSON object');
  return value;
}

function finishReason(stop: unknown): string {
  if (typeof stop !== 'string' || stop === '') return 'stop';
  return FINISH_REASONS[stop] ?? stop;
}

/** The fields of a message_delta's usage that it sets: an absent or null one keeps message_start's. */
function definedFields(usage: AnthropicUsage | undefined): AnthropicUsage {
  if (typeof usage !== 'object' || usage === null) return {};
  return Object.fromEntries(
    Object.entries(usage).filter(([, value]) => value !== undefined && value !== null),
  );
}

/** In the gateway's convention: prompt_tokens is the whole prompt, the cached and cache-written tokens parts of it. */
function toUsage(usage: AnthropicUsage | undefined, streamedOutput: number): UpstreamUsage | null {
  if (!usage || typeof usage.input_tokens !== 'number') return null;
  const cached = tokenCount(usage.cache_read_input_tokens);
  const written = tokenCount(usage.cache_creation_input_tokens);
  return withoutZeros({
    prompt_tokens: tokenCount(usage.input_tokens) + cached + written,
    completion_tokens: Math.max(tokenCount(usage.output_tokens), streamedOutput),
    cached_prompt_tokens: cached,
    cache_write_prompt_tokens: written,
    cache_write_1h_prompt_tokens: Math.min(
      tokenCount(usage.cache_creation?.ephemeral_1h_input_tokens),
      written,
    ),
    web_search_requests: tokenCount(usage.server_tool_use?.web_search_requests),
  });
}
