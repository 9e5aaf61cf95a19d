import { Subject } from 'rxjs';
import { DomainError, type NamedServerSentEvent } from '@gw/contracts';
import type { ChatStreamItem } from '../chat/chat-generation';
import { translateStream } from './event-stream';
import { TEXT_CHUNKS } from './format-fixtures';
import { messagesStreamTranslator } from './messages-translation';

function collect(chunks: Subject<ChatStreamItem>) {
  const seen: { events: NamedServerSentEvent[]; error: unknown; completed: boolean } = {
    events: [],
    error: null,
    completed: false,
  };
  const subscription = translateStream(chunks, messagesStreamTranslator()).subscribe({
    next: (event) => seen.events.push(event),
    error: (err: unknown) => (seen.error = err),
    complete: () => (seen.completed = true),
  });
  return { seen, subscription };
}

describe('translateStream', () => {
  it('passes a failure before the first event on as an error, for the gateway to answer with its status', () => {
    const chunks = new Subject<ChatStreamItem>();
    const { seen } = collect(chunks);
    const refusal = new DomainError('insufficient_balance', 'Insufficient balance');
    chunks.error(refusal);
    expect(seen).toEqual({ events: [], error: refusal, completed: false });
  });

  it("ends a started stream with the format's error event and completes", () => {
    const chunks = new Subject<ChatStreamItem>();
    const { seen } = collect(chunks);
    chunks.next({ chunk: TEXT_CHUNKS[0], promptTokens: 6 });
    chunks.error(new DomainError('upstream_error', 'The upstream provider broke off the answer'));
    expect(seen.error).toBeNull();
    expect(seen.completed).toBe(true);
    expect(seen.events.at(-1)?.data).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'The upstream provider broke off the answer' },
    });
  });

  it('hides an unexpected failure behind internal_error', () => {
    const chunks = new Subject<ChatStreamItem>();
    const { seen } = collect(chunks);
    chunks.next({ chunk: TEXT_CHUNKS[0], promptTokens: 6 });
    chunks.error(new Error('secret detail'));
    expect(seen.events.at(-1)?.data).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'The stream failed' },
    });
  });

  it('unsubscribes from the chunks when the client goes away, which cancels the upstream call', () => {
    const chunks = new Subject<ChatStreamItem>();
    const { subscription } = collect(chunks);
    expect(chunks.observed).toBe(true);
    subscription.unsubscribe();
    expect(chunks.observed).toBe(false);
  });
});
