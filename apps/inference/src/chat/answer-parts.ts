import { mergeReasoningDetails, type ReasoningDetail } from '@gw/contracts';
import type { ChatToolCallDto } from '@gw/dto';
import type { UpstreamStreamEvent } from '../providers/upstream-chat';

/** A plain answer put together from the stream it was read as: its text, its whole tool calls and its reasoning. */
export class AnswerParts {
  private text = '';
  private reasoningText = '';
  private readonly reasoningPieces: ReasoningDetail[] = [];
  private readonly calls: ChatToolCallDto[] = [];

  add(event: UpstreamStreamEvent): void {
    this.text += event.content ?? '';
    this.reasoningText += event.reasoning ?? '';
    this.reasoningPieces.push(...(event.reasoningDetails ?? []));
    for (const delta of event.toolCalls ?? []) {
      const call = (this.calls[delta.index] ??= {
        id: '',
        type: 'function',
        function: { name: '', arguments: '' },
      });
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.function.name = delta.function.name;
      call.function.arguments += delta.function?.arguments ?? '';
    }
  }

  /** The text, null for an answer of tool calls only, as the non-streamed wire answers it. */
  get content(): string | null {
    return this.text !== '' || this.toolCalls.length === 0 ? this.text : null;
  }

  /** The message's `reasoning` and `reasoning_details`, absent where the provider gave none, as OpenRouter answers. */
  get reasoning(): { reasoning?: string; reasoning_details?: ReasoningDetail[] } {
    const details = mergeReasoningDetails(this.reasoningPieces);
    return {
      ...(this.reasoningText !== '' ? { reasoning: this.reasoningText } : {}),
      ...(details.length > 0 ? { reasoning_details: details } : {}),
    };
  }

  get toolCalls(): ChatToolCallDto[] {
    return this.calls.filter((call) => call !== undefined);
  }
}
