import type { ChatToolCallDto } from '@gw/dto';
import type { UpstreamStreamEvent } from '../providers/upstream-chat';

/** A plain answer put together from the stream it was read as: its text and its whole tool calls. */
export class AnswerParts {
  private text = '';
  private readonly calls: ChatToolCallDto[] = [];

  add(event: UpstreamStreamEvent): void {
    this.text += event.content ?? '';
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

  get toolCalls(): ChatToolCallDto[] {
    return this.calls.filter((call) => call !== undefined);
  }
}
