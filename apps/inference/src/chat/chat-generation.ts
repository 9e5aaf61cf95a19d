import Decimal from 'decimal.js';
import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type GenerationResponseMode,
  type TokenUsage,
} from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatCompletionRpcMessageDto, ChatMessageDto } from '@gw/dto';
import { costNumber, generationCost } from '@gw/pricing';
import type { CatalogueModel, ProviderRoute } from '@gw/catalogue';
import type { GenerationHold } from '@gw/paid-generation';
import type { UpstreamUsage } from '../providers/upstream-chat';
import { estimatedTokens } from './token-estimate';

/** Everything known about one chat generation while it runs. */
export interface ChatGeneration {
  id: string;
  request: ChatCompletionRpcMessageDto;
  /** The request body with its model alias applied: canonical model id, alias values as body fields. */
  body: ChatCompletionRequestDto;
  responseMode: GenerationResponseMode;
  model: CatalogueModel;
  routes: ProviderRoute[];
  messages: ChatMessageDto[];
  /** The prompt's realistic estimate: the first hold's, and charged when the provider does not say how long the prompt was. */
  promptEstimate: number;
  /** The prompt as the hold counts it until the provider tells its count (see LearnedCounts.promptTokens). */
  heldPromptTokens: number;
  /** The kind of script the prompt is in, which keys what is learned of the provider's counts (see textWidth). */
  promptTextWidth: number;
  clientMax: number | null;
  /** What billing holds for this generation, its attempts and its outcome; it grows as the answer does. */
  hold: GenerationHold;
}

/**
 * A chunk of a streamed generation, with the prompt's tokens as known when it was sent: the
 * provider's count if it told one before the end, else the realistic estimate. The chunk goes to
 * chat clients as it is; the count is for APIs that announce the prompt size up front (Anthropic's
 * message_start).
 */
export interface ChatStreamItem {
  chunk: ChatCompletionChunk;
  promptTokens: number;
}

/**
 * Upstream usage where reported; otherwise `promptTokens` (what the provider said of the prompt so
 * far, else the realistic estimate, never the reservation bound) and the same estimate of the text
 * produced.
 */
export function usageOrEstimate(
  usage: UpstreamUsage | null,
  promptTokens: number,
  completionText: string,
): UpstreamUsage {
  return usage ?? { prompt_tokens: promptTokens, completion_tokens: estimatedTokens(completionText) };
}

/** The cost of a completion, never above what is held for it. */
export function completionCost(route: ProviderRoute, usage: UpstreamUsage, hold: GenerationHold): Decimal {
  return hold.capped(generationCost(route.pricing, usage));
}

/**
 * What a generation that ended early costs: nothing when the provider produced nothing, otherwise
 * the reported usage or, without one, the same estimate a complete answer would get.
 */
export function producedUsageAndCost(
  route: ProviderRoute,
  usage: UpstreamUsage | null,
  promptTokens: number,
  text: string,
  hold: GenerationHold,
): { usage: UpstreamUsage; cost: Decimal } {
  const final = usageOrEstimate(usage, promptTokens, text);
  if (text === '' && usage === null) return { usage: final, cost: new Decimal(0) };
  return { usage: final, cost: completionCost(route, final, hold) };
}

/** A moderation block before any output: no completion was produced, so nothing is charged. */
export function isBlockedWithoutOutput(finishReason: string | null, text: string): boolean {
  return finishReason === 'content_filter' && text === '';
}

export const BLOCKED_ERROR = {
  code: 'content_filter',
  message: 'The provider blocked the answer by moderation before any output',
} as const;

/** A provider's usage as the client and the history show it: OpenAI's usage object, every part the provider reported in its details. */
export function tokenUsage(usage: UpstreamUsage): Required<TokenUsage> {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: {
      cached_tokens: usage.cached_prompt_tokens ?? 0,
      cache_write_tokens: usage.cache_write_prompt_tokens ?? 0,
      cache_write_1h_tokens: usage.cache_write_1h_prompt_tokens ?? 0,
      audio_tokens: usage.audio_prompt_tokens ?? 0,
      cached_audio_tokens: usage.cached_audio_prompt_tokens ?? 0,
      image_tokens: usage.image_prompt_tokens ?? 0,
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: usage.audio_completion_tokens ?? 0,
      image_tokens: usage.image_completion_tokens ?? 0,
    },
    server_tool_use: { web_search_requests: usage.web_search_requests ?? 0 },
  };
}

/** The usage a client is shown, with what it cost. */
export function usageWithCost(usage: UpstreamUsage, cost: Decimal): ChatCompletion['usage'] {
  const rub = costNumber(cost);
  return { ...tokenUsage(usage), cost_rub: rub, cost: rub };
}
