import { ANTHROPIC_REASONING_FORMAT, type ReasoningDetail } from '@gw/contracts';
import type { ChatMessageDto } from '@gw/dto';
import {
  type ChatAdapter,
  type ChatAdapterCall,
  tokenCount,
  type UpstreamChatRequest,
  type UpstreamStreamEvent,
  type UpstreamUsage,
  withoutZeros,
} from './upstream-chat';
import type { EventSourceMessage } from 'eventsource-parser';
import { type ProviderErrorClass, providerErrorOf, UpstreamFailure } from '@gw/paid-generation';
import { type UpstreamHttp } from './upstream-http';

const ANTHROPIC_VERSION = '2023-06-01';

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

type AnthropicBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'url'; url: string } | { type: 'base64'; media_type: string; data: string };
    }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

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

  async *stream(call: ChatAdapterCall): AsyncIterable<UpstreamStreamEvent> {
    const body = { ...toAnthropicRequest(call.request), stream: true };
    const response = await this.http.post(this.url(call), this.headers(call), body, call.signal);
    let input: AnthropicUsage = {};
    const blocks = new AnswerBlocks();
    let stopped = false;
    for await (const event of this.http.events(response, isMessageStop)) {
      const data = parse(event.data);
      switch (event.event === 'error' ? 'error' : data.type) {
        case 'message_start': {
          input = data.message?.usage ?? {};
          const prompt = toUsage(input, 0)?.prompt_tokens;
          if (prompt !== undefined) yield { promptTokens: prompt };
          break;
        }
        case 'content_block_start': {
          const started = blocks.start(data.index ?? 0, data.content_block);
          if (started) yield started;
          break;
        }
        case 'content_block_delta': {
          const delta = blocks.delta(data.index ?? 0, data.delta);
          if (delta) yield delta;
          break;
        }
        case 'message_delta': {
          const usage = toUsage(
            { ...input, ...definedFields(data.usage) },
            tokenCount(data.usage?.output_tokens),
          );
          yield { finishReason: finishReason(data.delta?.stop_reason), ...(usage ? { usage } : {}) };
          break;
        }
        case 'message_stop':
          stopped = true;
          break;
        case 'error':
          throw streamError(data.error);
        case undefined:
        default:
          // ping, content_block_stop, untyped events and types added later carry nothing a chat needs.
          break;
      }
      if (stopped) break;
    }
    if (!stopped) throw new UpstreamFailure('protocol', 'Upstream stream ended without message_stop');
  }

  private url(call: ChatAdapterCall): string {
    return `${call.baseUrl}/v1/messages`;
  }

  private headers(call: ChatAdapterCall): Record<string, string> {
    return { 'x-api-key': call.apiKey ?? '', 'anthropic-version': ANTHROPIC_VERSION };
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

interface AnthropicBlockStart {
  type?: string;
  id?: string;
  name?: string;
  thinking?: string;
  signature?: string;
  data?: string;
}

interface AnthropicDelta {
  type?: string;
  text?: string;
  partial_json?: string;
  thinking?: string;
  signature?: string;
  stop_reason?: string | null;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The content blocks of one streamed answer, by Anthropic's block index: tool_use blocks become the
 * chat's tool calls, numbered in order; thinking and redacted_thinking blocks its reasoning items,
 * numbered in order too, each with the signature or data that lets Anthropic take it back.
 */
class AnswerBlocks {
  private readonly tools = new Map<number, number>();
  private readonly reasoning = new Map<number, number>();

  start(block: number, start: AnthropicBlockStart | undefined): UpstreamStreamEvent | null {
    if (start?.type === 'tool_use' && typeof start.id === 'string' && typeof start.name === 'string') {
      const index = this.tools.size;
      this.tools.set(block, index);
      return {
        toolCalls: [{ index, id: start.id, type: 'function', function: { name: start.name, arguments: '' } }],
      };
    }
    if (start?.type === 'thinking') {
      const index = this.reasoningIndex(block);
      return this.thinking(index, start.thinking, start.signature);
    }
    if (start?.type === 'redacted_thinking' && typeof start.data === 'string') {
      const index = this.reasoningIndex(block);
      return {
        reasoningDetails: [
          { type: 'reasoning.encrypted', data: start.data, format: ANTHROPIC_REASONING_FORMAT, index },
        ],
      };
    }
    return null;
  }

  delta(block: number, delta: AnthropicDelta | undefined): UpstreamStreamEvent | null {
    if (delta?.type === 'text_delta' && nonEmpty(delta.text)) return { content: delta.text };
    if (delta?.type === 'input_json_delta' && nonEmpty(delta.partial_json))
      return {
        toolCalls: [{ index: this.tools.get(block) ?? 0, function: { arguments: delta.partial_json } }],
      };
    if (delta?.type === 'thinking_delta' || delta?.type === 'signature_delta') {
      const index = this.reasoning.get(block) ?? this.reasoningIndex(block);
      return this.thinking(index, delta.thinking, delta.signature);
    }
    return null;
  }

  private reasoningIndex(block: number): number {
    const index = this.reasoning.size;
    this.reasoning.set(block, index);
    return index;
  }

  /** A piece of a thinking block: its text, its signature (which Anthropic sends last), or both. */
  private thinking(index: number, text: unknown, signature: unknown): UpstreamStreamEvent | null {
    if (!nonEmpty(text) && !nonEmpty(signature)) return null;
    return {
      ...(nonEmpty(text) ? { reasoning: text } : {}),
      reasoningDetails: [
        {
          type: 'reasoning.text',
          ...(nonEmpty(text) ? { text } : {}),
          ...(nonEmpty(signature) ? { signature } : {}),
          format: ANTHROPIC_REASONING_FORMAT,
          index,
        },
      ],
    };
  }
}

/** Anthropic's error types that say when to come back rather than what went wrong. */
const ERROR_CLASSES: Record<string, ProviderErrorClass> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limited',
  invalid_request_error: 'refused',
  authentication_error: 'unauthorized',
  permission_error: 'unauthorized',
};

/** Anthropic names each event; `message_stop` is the last of an answer. */
function isMessageStop(event: EventSourceMessage): boolean {
  return event.event === 'message_stop';
}

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

export function toAnthropicRequest(request: UpstreamChatRequest): Record<string, unknown> {
  const system = request.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n\n');
  const messages: AnthropicMessage[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  // The Anthropic wire refuses a request without turns, which OpenAI serves: the instructions become the one user turn.
  const instructionsOnly = messages.length === 0 && system !== '';
  return {
    model: request.model,
    max_tokens: request.max_tokens,
    messages: instructionsOnly ? [{ role: 'user', content: [{ type: 'text', text: system }] }] : messages,
    ...(system && !instructionsOnly ? { system } : {}),
    ...(request.temperature !== undefined ? { temperature: Math.min(request.temperature, 1) } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.function.name,
            ...(tool.function.description ? { description: tool.function.description } : {}),
            input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
          })),
        }
      : {}),
    ...(request.tools?.length && request.tool_choice ? { tool_choice: toolChoice(request.tool_choice) } : {}),
    ...(request.user ? { metadata: { user_id: request.user } } : {}),
    ...(request.stop?.length ? { stop_sequences: request.stop } : {}),
    ...thinkingSetting(request),
  };
}

/** OpenRouter's budget for an effort on a model that takes a budget: this share of the answer's max_tokens. */
const EFFORT_BUDGET_SHARE: Record<string, number> = {
  max: 0.95,
  xhigh: 0.95,
  high: 0.8,
  medium: 0.5,
  low: 0.2,
  minimal: 0.1,
};
/** Anthropic's least thinking budget, and the most OpenRouter derives from an effort. */
const MIN_THINKING_BUDGET = 1024;
const MAX_EFFORT_BUDGET = 128_000;

/**
 * Anthropic's `thinking` from the reasoning settings: a budget as given (Messages' budget_tokens,
 * chat's reasoning.max_tokens) is sent as it is, for Anthropic to judge; one derived from an effort
 * as OpenRouter derives it, and only when it fits below max_tokens, which Anthropic requires.
 */
function thinkingSetting(request: UpstreamChatRequest): { thinking?: Record<string, unknown> } {
  const reasoning = request.reasoning;
  if (!reasoning) return {};
  if (reasoning.enabled === false || reasoning.effort === 'none') return { thinking: { type: 'disabled' } };
  if (reasoning.max_tokens !== undefined)
    return { thinking: { type: 'enabled', budget_tokens: reasoning.max_tokens } };
  const share = EFFORT_BUDGET_SHARE[reasoning.effort ?? ''];
  if (share === undefined && reasoning.enabled !== true) return {};
  const budget =
    share === undefined
      ? MIN_THINKING_BUDGET
      : Math.max(Math.min(Math.floor(request.max_tokens * share), MAX_EFFORT_BUDGET), MIN_THINKING_BUDGET);
  return budget < request.max_tokens ? { thinking: { type: 'enabled', budget_tokens: budget } } : {};
}

function toolChoice(choice: NonNullable<UpstreamChatRequest['tool_choice']>): Record<string, unknown> {
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto' };
  return { type: 'tool', name: choice.function.name };
}

/**
 * The reasoning items Anthropic can take back, as the thinking blocks they were: signed thinking
 * and redacted thinking of Anthropic's format (or of none named). Anthropic refuses thinking it
 * cannot verify, so unsigned text, summaries and other providers' encrypted reasoning are left out.
 */
export function thinkingBlocks(details: ReasoningDetail[] | undefined): AnthropicBlock[] {
  return (details ?? []).flatMap((detail): AnthropicBlock[] => {
    if (detail.format !== undefined && detail.format !== ANTHROPIC_REASONING_FORMAT) return [];
    if (detail.type === 'reasoning.text' && nonEmpty(detail.signature))
      return [{ type: 'thinking', thinking: detail.text ?? '', signature: detail.signature }];
    if (detail.type === 'reasoning.encrypted' && nonEmpty(detail.data))
      return [{ type: 'redacted_thinking', data: detail.data }];
    return [];
  });
}

function toBlocks(message: ChatMessageDto): AnthropicBlock[] {
  if (message.role === 'tool')
    return [
      { type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) },
    ];
  // Anthropic wants an assistant turn's thinking before its text and tool calls.
  const blocks: AnthropicBlock[] =
    message.role === 'assistant' ? thinkingBlocks(message.reasoning_details) : [];
  if (typeof message.content === 'string') {
    if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  } else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'text' && 'text' in part) blocks.push({ type: 'text', text: part.text });
      if (part.type === 'image_url' && 'image_url' in part)
        blocks.push({ type: 'image', source: imageSource(part.image_url.url) });
    }
  }
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return blocks.length > 0 ? blocks : [{ type: 'text', text: '' }];
}

function imageSource(url: string): Extract<AnthropicBlock, { type: 'image' }>['source'] {
  const data = /^data:([^;]+);base64,(.*)$/s.exec(url);
  return data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url };
}

function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

function textOf(content: ChatMessageDto['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && 'text' in part ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}
