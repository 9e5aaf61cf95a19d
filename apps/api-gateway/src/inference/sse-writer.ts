import { Logger } from '@nestjs/common';
import { errorEnvelope, toDomainErrorForHttp } from '@gw/platform';
import type { Response } from 'express';
import type { Observable } from 'rxjs';

const logger = new Logger('ServerSentEvents');

/**
 * Relays a stream of chunks as Server-Sent Events: `data: <json>` per chunk and `data: [DONE]`
 * at the end. A failure before the first chunk rejects, so the error filter answers the ordinary
 * JSON envelope with its status; after the first chunk the status is sent, so the error becomes a
 * last `data: {"error": ...}` event without [DONE]. A client that disconnects unsubscribes and
 * `onAbandoned` runs, for the transports that do not tell the producer.
 */
export function relayServerSentEvents<T>(
  chunks: Observable<T>,
  response: Response,
  onAbandoned: () => void = () => undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      response.status(200);
      response.setHeader('content-type', 'text/event-stream; charset=utf-8');
      response.setHeader('cache-control', 'no-cache');
      response.setHeader('x-accel-buffering', 'no');
      response.flushHeaders();
    };
    const subscription = chunks.subscribe({
      next: (chunk) => {
        start();
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      },
      error: (err: unknown) => {
        if (!started) return reject(err);
        response.end(`data: ${JSON.stringify(errorEnvelope(toDomainErrorForHttp(err, logger)))}\n\n`);
        resolve();
      },
      complete: () => {
        start();
        response.end('data: [DONE]\n\n');
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
