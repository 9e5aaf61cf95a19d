import { IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import { broadcast, rpc, stream } from '../contract';
import type { Pricing } from '@gw/pricing';
import type {
  CompletionTokensDetails,
  PromptTokensDetails,
  ServerToolUse,
} from '../billing/billing.contracts';
import { PaidRequestEnvelope } from './paid-request';
import type { ReasoningDetail } from './reasoning';

/** Which public API the request came through; recorded in history as `apiType`. */
export type InferenceApiType = 'chat_completions' | 'responses' | 'messages' | (string & {});

/**
 * The chat request body as the gateway validated it (ChatCompletionRequestDto of the dto library, which
 * the service validates again); only the fields every side relies on are spelled out here.
 */
export interface ChatCompletionBody {
  model: string;
  stream?: boolean;
}

/** The body is the public API's: the inference service validates it with ChatCompletionRequestDto. */
export class ChatCompletionRequest extends PaidRequestEnvelope {
  @IsObject()
  body!: ChatCompletionBody;

  @IsString()
  @IsNotEmpty()
  apiType!: InferenceApiType;
}

/** The gateway's client went away: the replica running this generation aborts its upstream call. */
export class CancelGenerationEvent {
  @IsString()
  generationId!: string;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** OpenAI's chat usage with the parts the provider reported (see TokenUsage), plus the cost. */
export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: PromptTokensDetails;
  completion_tokens_details: CompletionTokensDetails;
  server_tool_use: ServerToolUse;
  /** Roubles rounded to 8 places; `cost` is the same number. */
  cost_rub: number;
  cost: number;
}

/** The "Chat completion" of the interface. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  provider: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: ChatToolCall[];
      /** The reasoning's text and its items, as OpenRouter returns them, when the provider reasoned. */
      reasoning?: string;
      reasoning_details?: ReasoningDetail[];
    };
    finish_reason: ChatFinishReason;
  }>;
  usage: ChatCompletionUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/** One streamed increment; the last chunk carries usage with the cost (DESIGN.md §5.4). */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  provider: string;
  choices: Array<{
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: ChatToolCallDelta[];
      reasoning?: string;
      /** Pieces of reasoning items; the pieces with one `index` make one item (see mergeReasoningDetails). */
      reasoning_details?: ReasoningDetail[];
    };
    finish_reason: ChatFinishReason | null;
  }>;
  usage?: ChatCompletionUsage;
}

export interface ParameterDescriptor {
  required?: boolean;
  description?: string;
  max_length?: number;
  min?: number;
  max?: number;
  default?: unknown;
  values?: string[];
}

export interface ProviderDescriptor {
  is_moderated: boolean;
  pricing: Pricing;
  context_length: number | null;
  max_completion_tokens: number | null;
  supported_parameters: string[];
  default_parameters: { temperature: number | null; top_p: number | null; frequency_penalty: number | null };
  per_request_limits: { prompt_tokens: number | null; completion_tokens: number | null };
  parameters: Record<string, ParameterDescriptor>;
}

/** The "Model catalogue entry" of the interface, as `GET /v1/models` lists it (no routing data). */
export interface ModelCatalogueEntry {
  id: string;
  name: string;
  type: string;
  created: number;
  architecture: {
    input_modalities: string[];
    output_modalities: string[];
    modality: string;
    tokenizer: string;
    instruct_type: string;
  };
  top_provider: ProviderDescriptor;
  endpoints: string[];
  short_description: string;
  providers: Array<ProviderDescriptor & { name: string }>;
  parameters: Record<string, ParameterDescriptor>;
  operations: Array<{
    id: string;
    name: string;
    async: boolean;
    description: string;
    pricing: Pricing;
    parameters: Record<string, ParameterDescriptor>;
  }>;
}

export interface ModelList {
  data: ModelCatalogueEntry[];
}

/** Filters of the model list; absent ones do not filter. */
export class ListModelsRequest {
  @IsOptional()
  @IsString()
  type?: string;

  @IsOptional()
  @IsString()
  endpoint?: string;
}

export const InferenceContracts = {
  chatCompletion: rpc<ChatCompletionRequest, ChatCompletion>(
    'inference.v1.chat-completion',
    ChatCompletionRequest,
  ),
  /** Chunks in order; an error after the first chunk ends the stream. */
  chatCompletionStream: stream<ChatCompletionRequest, ChatCompletionChunk>(
    'inference.v1.chat-completion-stream',
    ChatCompletionRequest,
  ),
  listModels: rpc<ListModelsRequest, ModelList>('inference.v1.list-models', ListModelsRequest),
  /** Broadcast without a queue group: only the replica that runs the generation has anything to abort. */
  cancelGeneration: broadcast<CancelGenerationEvent>('inference.v1.cancel-generation', CancelGenerationEvent),
} as const;
