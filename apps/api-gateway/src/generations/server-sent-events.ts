import { Logger } from '@nestjs/common';
import type { DomainError, NamedServerSentEvent } from '@gw/contracts';
import { errorEnvelope, toDomainErrorForHttp } from '@gw/platform';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import { noteAnswerCost } from '../http/answer-cost';

const logger = new Logger('ServerSentEvents');

/** How one API writes its events on the wire. */
export interface EventFraming<T> {
  event(item: T): string;
  /** Ends a stream that completed; empty where the API has no end marker. */
  end: string;
  /** The last event of a stream that fails after its first event; `eventsSent` counts the events before it. */
  failure(error: DomainError, eventsSent: number): string;
}

function dataEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function namedEvent(event: NamedServerSentEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Chat completions: `data: <json>` per chunk, `data: [DONE]` at the end, the error envelope on a failure. */
export const DATA_EVENTS: EventFraming<unknown> = {
  event: dataEvent,
  end: 'data: [DONE]\n\n',
  failure: (error) => dataEvent(errorEnvelope(error)),
};

/**
 * The Responses and Messages APIs: `event: <name>` and `data: <json>`, no end marker, and the
 * format's own error event on a failure the service could not report itself (a lost or silent service).
 */
export function namedEvents(
  errorEvent: (error: DomainError, eventsSent: number) => NamedServerSentEvent,
): EventFraming<NamedServerSentEvent> {
  return {
    event: namedEvent,
    end: '',
    failure: (error, eventsSent) => namedEvent(errorEvent(error, eventsSent)),
  };
}

/** What the relay tells its caller besides writing the stream. */
export interface RelayHooks {
  /** The client disconnected before the end, for the transports that do not tell the producer. */
  onAbandoned: () => void;
  /** The stream failed, before or after its first event. */
  onFailed: (err: unknown) => void;
}

/**
 * Relays a stream as Server-Sent Events, each written as it arrives. A failure before the first
 * event rejects, so the error filter answers the ordinary JSON envelope with its status; after it
 * the status is sent, so the framing's failure event ends the stream. A client that disconnects
 * unsubscribes.
 */
export function relayServerSentEvents<T>(
  items: Observable<T>,
  response: Response,
  framing: EventFraming<T>,
  hooks: RelayHooks,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let sent = 0;
    const start = () => {
      if (sent > 0) return;
      response.status(200);
      response.setHeader('content-type', 'text/event-stream; charset=utf-8');
      response.setHeader('cache-control', 'no-cache');
      response.setHeader('x-accel-buffering', 'no');
      response.flushHeaders();
    };
    const end = (last: string) => (last === '' ? response.end() : response.end(last));
    const subscription = items.subscribe({
      next: (item) => {
        start();
        response.write(framing.event(item));
        noteAnswerCost(response, item);
        sent += 1;
      },
      error: (err: unknown) => {
        hooks.onFailed(err);
        if (sent === 0) return reject(err);
        end(framing.failure(toDomainErrorForHttp(err, logger), sent));
        resolve();
      },
      complete: () => {
        start();
        end(framing.end);
        resolve();
      },
    });
    // The response's close, not the request's: the request's may have fired once its body was read.
    response.on('close', () => {
      if (!response.writableEnded) {
        subscription.unsubscribe();
        hooks.onAbandoned();
        resolve();
      }
    });
  });
}
