import type { ReasoningDetail } from '@gw/contracts';
import type { ChatMessageDto, ToolDto } from '@gw/dto';
import type { Usage } from '@gw/pricing';
import type { UpstreamSignal } from './upstream-abort';

/** What the service asks of any provider, in the gateway's (OpenAI-like) chat shape. */
export interface UpstreamChatRequest {
  model: string;
  messages: ChatMessageDto[];
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  tools?: ToolDto[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  response_format?: { type: string; json_schema?: Record<string, unknown> };
  reasoning_effort?: string;
  /** The client's reasoning settings, for wires that take more than the effort (Anthropic's thinking budget). */
  reasoning?: UpstreamReasoning;
  web_search_options?: Record<string, unknown>;
  user?: string;
  /** Sequences that end the answer before they would be output. */
  stop?: string[];
  seed?: number;
  parallel_tool_calls?: boolean;
  logit_bias?: Record<string, number>;
}

export interface UpstreamReasoning {
  effort?: string;
  max_tokens?: number;
  enabled?: boolean;
}

/**
 * A provider's usage in the one shape every generation is billed from (see Usage): the parts a
 * chat wire can carry, each counted in its whole as well.
 */
export type UpstreamUsage = Pick<
  Usage,
  | 'cached_prompt_tokens'
  | 'cache_write_prompt_tokens'
  | 'cache_write_1h_prompt_tokens'
  | 'audio_prompt_tokens'
  | 'cached_audio_prompt_tokens'
  | 'image_prompt_tokens'
  | 'reasoning_tokens'
  | 'audio_completion_tokens'
  | 'image_completion_tokens'
  | 'web_search_requests'
> & { prompt_tokens: number; completion_tokens: number };

export interface UpstreamToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/** One increment of a streamed answer; any field may be absent. */
export interface UpstreamStreamEvent {
  /** The prompt's tokens as the provider counted them, when it tells before the end (Anthropic's message_start). */
  promptTokens?: number;
  content?: string;
  /** Reasoning text, as it is also carried in the pieces of reasoningDetails. */
  reasoning?: string;
  /** Pieces of reasoning items in OpenRouter's shape; the pieces of one `index` make one item. */
  reasoningDetails?: ReasoningDetail[];
  toolCalls?: UpstreamToolCallDelta[];
  finishReason?: string;
  usage?: UpstreamUsage;
}

export interface ChatAdapterCall {
  baseUrl: string;
  apiKey: string | null;
  request: UpstreamChatRequest;
  signal: UpstreamSignal;
}

/**
 * One wire format. Every answer is read as a stream, plain ones too, so that its hold can grow with
 * it. Implementations throw UpstreamFailure and never a DomainError.
 */
export interface ChatAdapter {
  /** The answer's events in order, a batch (never empty) per read from the provider. */
  stream(call: ChatAdapterCall): AsyncIterable<UpstreamStreamEvent[]>;
}

/** A token count as both wires document it, a non-negative integer; anything else counts nothing. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** A usage without its parts of zero, as a provider that reported none of them would have it. */
export function withoutZeros(usage: UpstreamUsage): UpstreamUsage {
  const parts = Object.entries(usage).filter(
    ([key, value]) => key === 'prompt_tokens' || key === 'completion_tokens' || value !== 0,
  );
  return Object.fromEntries(parts) as UpstreamUsage;
}
