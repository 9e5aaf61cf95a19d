import { Observable } from 'rxjs';
import {
  type ChatCompletionChunk,
  DomainError,
  type NamedServerSentEvent,
  type RpcErrorPayload,
} from '@gw/contracts';
import type { ChatStreamItem } from '../chat/chat-generation';

export type StreamFailure = Pick<RpcErrorPayload, 'code' | 'message'> & { param: string | null };

/** A chunk with the prompt's tokens as known when it was sent (see ChatStreamItem), or the failure that ended the stream. */
export type StreamInput =
  | { kind: 'chunk'; chunk: ChatCompletionChunk; promptTokens: number }
  | { kind: 'error'; error: StreamFailure };

export interface StreamStep<S> {
  state: S;
  events: NamedServerSentEvent[];
}

/**
 * Turns the chat pipeline's chunks into another API's native events. `step` is pure: it returns
 * the next state and the events to send, so every format is tested as a table of inputs.
 */
export interface StreamTranslator<S> {
  initial: S;
  step(state: S, input: StreamInput): StreamStep<S>;
  /** Whether the client has been sent anything: before that an error is still an HTTP error. */
  started(state: S): boolean;
}

export function failureOf(err: unknown): StreamFailure {
  if (err instanceof DomainError) return { code: err.code, message: err.message, param: err.param };
  return { code: 'internal_error', message: 'The stream failed', param: null };
}

/**
 * Runs a translator over a chunk stream. A failure before the first event stays an error (the
 * gateway answers it with its HTTP status); after it, the format's error event ends the stream.
 * Unsubscribing unsubscribes from the chunks, which cancels the upstream call.
 */
export function translateStream<S>(
  chunks: Observable<ChatStreamItem>,
  translator: StreamTranslator<S>,
): Observable<NamedServerSentEvent> {
  return new Observable<NamedServerSentEvent>((subscriber) => {
    let state = translator.initial;
    const apply = (input: StreamInput) => {
      const step = translator.step(state, input);
      state = step.state;
      step.events.forEach((event) => subscriber.next(event));
    };
    const subscription = chunks.subscribe({
      next: ({ chunk, promptTokens }) => apply({ kind: 'chunk', chunk, promptTokens }),
      error: (err: unknown) => {
        if (!translator.started(state)) return subscriber.error(err);
        apply({ kind: 'error', error: failureOf(err) });
        subscriber.complete();
      },
      complete: () => subscriber.complete(),
    });
    return () => subscription.unsubscribe();
  });
}
