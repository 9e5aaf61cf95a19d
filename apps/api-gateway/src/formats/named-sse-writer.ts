import { Logger } from '@nestjs/common';
import { type DomainError, type NamedServerSentEvent } from '@gw/contracts';
import { toDomainErrorForHttp } from '@gw/platform';
import type { Response } from 'express';
import type { Observable } from 'rxjs';

const logger = new Logger('NamedServerSentEvents');

/** The format's error event for a failure the service could not report itself (a lost or silent service). */
export type ErrorEventFactory = (error: DomainError, eventsSent: number) => NamedServerSentEvent;

export function serverSentEvent(event: NamedServerSentEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Relays named events as Server-Sent Events (`event: <name>` and `data: <json>`), the framing of the
 * Responses and Messages APIs, which end without a `[DONE]` marker. A failure before the first
 * event rejects, so the error filter answers with its HTTP status; after it, the format's error
 * event ends the stream. A client that disconnects unsubscribes and `onAbandoned` runs.
 */
export function relayNamedServerSentEvents(
  events: Observable<NamedServerSentEvent>,
  response: Response,
  errorEvent: ErrorEventFactory,
  onAbandoned: () => void,
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
    const subscription = events.subscribe({
      next: (event) => {
        start();
        response.write(serverSentEvent(event));
        sent += 1;
      },
      error: (err: unknown) => {
        if (sent === 0) return reject(err);
        response.end(serverSentEvent(errorEvent(toDomainErrorForHttp(err, logger), sent)));
        resolve();
      },
      complete: () => {
        start();
        response.end();
        resolve();
      },
    });
    // The response's close, not the request's: the request's may have fired once its body was read.
    response.on('close', () => {
      if (!response.writableEnded) {
        subscription.unsubscribe();
        onAbandoned();
        resolve();
      }
    });
  });
}
