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
  /** The answer's start in seconds, as every chunk tells it. */
  private readonly created: number;

  constructor(
    private readonly generation: ChatGeneration,
    private readonly route: ProviderRoute,
    private readonly subscriber: Subscriber<ChatStreamItem>,
  ) {
    this.created = Math.floor(generation.hold.context.startedAt.getTime() / 1000);
  }

  /** A piece of the answer as its chunk; built field by field, since it runs once per token. */
  delta(event: UpstreamStreamEvent, promptTokens: number): void {
    const delta: Chunk['choices'][number]['delta'] = {};
    if (!this.roleSent) delta.role = 'assistant';
    if (event.content) delta.content = event.content;
    if (event.toolCalls) delta.tool_calls = event.toolCalls;
    if (event.reasoning) delta.reasoning = event.reasoning;
    if (event.reasoningDetails) delta.reasoning_details = event.reasoningDetails;
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
    const chunk: Chunk = {
      id: this.generation.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.generation.model.entry.id,
      provider: this.route.name,
      choices,
    };
    if (usage) chunk.usage = usage;
    return chunk;
  }
}
