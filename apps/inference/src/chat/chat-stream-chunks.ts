import type Decimal from 'decimal.js';
import type { Subscriber } from 'rxjs';
import type { ChatCompletionChunk, DomainError } from '@gw/contracts';
import type { ProviderRoute } from '@gw/catalogue';
import type { UpstreamStreamEvent, UpstreamUsage } from '../providers/upstream-chat';
import { type ChatGeneration, type ChatStreamItem, usageWithCost } from './chat-generation';

type Chunk = ChatCompletionChunk;

/**
 * One streamed chat answer as OpenAI's chunks: the role with the first delta, then the deltas, and
 * the usage with its cost in the last chunk, which also goes before an error event when the
 * provider broke off (what was relayed is charged, so the stream says how much).
 */
export class ChatStreamChunks {
  private roleSent = false;

  constructor(
    private readonly generation: ChatGeneration,
    private readonly route: ProviderRoute,
    private readonly subscriber: Subscriber<ChatStreamItem>,
  ) {}

  delta(event: UpstreamStreamEvent, promptTokens: number): void {
    const delta: Chunk['choices'][number]['delta'] = {
      ...(this.roleSent ? {} : { role: 'assistant' as const }),
      ...(event.content ? { content: event.content } : {}),
      ...(event.toolCalls ? { tool_calls: event.toolCalls } : {}),
      ...(event.reasoning ? { reasoning: event.reasoning } : {}),
      ...(event.reasoningDetails ? { reasoning_details: event.reasoningDetails } : {}),
    };
    this.roleSent = true;
    this.subscriber.next({ chunk: this.chunk([{ index: 0, delta, finish_reason: null }]), promptTokens });
  }

  /** The last chunk, with the finish reason and the usage; the stream is completed once the outcome is reported. */
  last(finishReason: string, usage: UpstreamUsage, cost: Decimal): void {
    const delta: Chunk['choices'][number]['delta'] = this.roleSent ? {} : { role: 'assistant', content: '' };
    this.subscriber.next({
      chunk: this.chunk([{ index: 0, delta, finish_reason: finishReason }], usageWithCost(usage, cost)),
      promptTokens: usage.prompt_tokens,
    });
  }

  brokenOff(error: DomainError, usage: UpstreamUsage, cost: Decimal): void {
    this.subscriber.next({
      chunk: this.chunk([], usageWithCost(usage, cost)),
      promptTokens: usage.prompt_tokens,
    });
    this.subscriber.error(error);
  }

  private chunk(choices: Chunk['choices'], usage?: Chunk['usage']): Chunk {
    return {
      id: this.generation.id,
      object: 'chat.completion.chunk',
      created: Math.floor(this.generation.hold.context.startedAt.getTime() / 1000),
      model: this.generation.model.entry.id,
      provider: this.route.name,
      choices,
      ...(usage ? { usage } : {}),
    };
  }
}
