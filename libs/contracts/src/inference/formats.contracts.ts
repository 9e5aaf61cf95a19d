import { IsObject } from 'class-validator';
import { rpc, stream } from '../contract';
import { ERROR_CODE_TABLE, ErrorCode } from '../errors';
import { PaidRequestEnvelope } from './paid-request';

/**
 * The OpenAI Responses and Anthropic Messages APIs ride on the chat pipeline: the inference service
 * translates the request into a chat body, runs it, and translates the answer back. Only the
 * fields every side relies on are spelled out; the dto library holds the validated classes.
 */
export interface FormatRequestBody {
  model: string;
  stream?: boolean;
}

/** The body is the public API's: the inference service validates it with the Responses or Messages DTO. */
export class FormatRequest extends PaidRequestEnvelope {
  @IsObject()
  body!: FormatRequestBody;
}

/** OpenAI's Responses usage: input_tokens counts the cached part too; `cache_write_tokens` is the gateway's, OpenRouter's name for what was written to the cache. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** Roubles rounded to 8 places; `cost` is the same number. */
  cost_rub: number;
  cost: number;
}

export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
}

export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesMessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ResponsesItemStatus;
  content: ResponsesOutputText[];
}

export interface ResponsesFunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ResponsesItemStatus;
}

/**
 * OpenAI's reasoning item: `summary`, the reasoning's text as `content`, and `encrypted_content`
 * where the provider hid it; OpenRouter's `signature` and `format` for reasoning a provider signed.
 * Sent back in `input`, it reaches the provider as it came.
 */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content?: Array<{ type: 'reasoning_text'; text: string }>;
  encrypted_content?: string;
  signature?: string;
  format?: string;
  status: ResponsesItemStatus;
}

export type ResponsesOutputItem = ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesReasoningItem;

/** The `response` object of the OpenAI Responses API, plus the gateway's `provider` and costs. */
export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: null };
  store: boolean;
  temperature: number | null;
  text: { format: Record<string, unknown> };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: 'disabled';
  usage: ResponsesUsage | null;
  user: string | null;
  metadata: Record<string, string>;
  provider: string | null;
}

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export type MessagesContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Anthropic's usage: input_tokens excludes the tokens read from and written to the cache, which have their own counts. */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  server_tool_use: { web_search_requests: number };
  cost_rub: number;
  cost: number;
}

/** The `message` object of the Anthropic Messages API, plus the gateway's `provider` and costs. */
export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesContentBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
  provider: string;
}

/** One Server-Sent Event with a name (`event: <event>`); `data` is sent as JSON and carries `type` too. */
export interface NamedServerSentEvent {
  event: string;
  data: { type: string } & Record<string, unknown>;
}

export const FormatsContracts = {
  responses: rpc<FormatRequest, ResponsesResponse>('inference.v1.responses', FormatRequest),
  /** The native Responses events in order; an error after the first event arrives as an `error` event, then the stream ends. */
  responsesStream: stream<FormatRequest, NamedServerSentEvent>(
    'inference.v1.responses-stream',
    FormatRequest,
  ),
  messages: rpc<FormatRequest, MessagesResponse>('inference.v1.messages', FormatRequest),
  /** The native Messages events in order; an error after `message_start` arrives as an `error` event, then the stream ends. */
  messagesStream: stream<FormatRequest, NamedServerSentEvent>('inference.v1.messages-stream', FormatRequest),
} as const;

/** Anthropic names error types rather than codes; a refused payment is its `billing_error`. */
export function messagesErrorType(code: ErrorCode): string {
  if (code === 'upstream_overloaded') return 'overloaded_error';
  const type = ERROR_CODE_TABLE[code]?.type ?? 'api_error';
  if (type === 'insufficient_quota') return 'billing_error';
  if (type === 'conflict_error') return 'invalid_request_error';
  return type;
}
