import { ANTHROPIC_REASONING_FORMAT } from '@gw/contracts';
import type { UpstreamStreamEvent } from './upstream-chat';

/** A content_block_start's block, as far as a chat reads it. */
export interface AnthropicBlockStart {
  type?: string;
  id?: string;
  name?: string;
  thinking?: string;
  signature?: string;
  data?: string;
}

/** A content_block_delta's or message_delta's delta, as far as a chat reads it. */
export interface AnthropicDelta {
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
export class AnswerBlocks {
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
