import { type NestExpressApplication } from '@nestjs/platform-express';
import { DomainError } from '@gw/contracts';
import { errorEnvelope } from '@gw/platform';
import type { NextFunction, Request, Response } from 'express';
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { hasBody } from './request-parsing';

/** A socket as Node's HTTP server hands it to `clientError`: with the response in flight, if any. */
type ServerSocket = Duplex & { _httpMessage?: { headersSent: boolean } | null };

/**
 * The answers Node's HTTP server gives itself, before any request reaches Express (its statuses,
 * the gateway's envelope): headers over its 16 KB bound, chunk extensions over its bound, headers
 * that did not arrive within `headersTimeout`. Anything else it cannot parse is a 400.
 */
const NODE_ANSWERS: Record<string, { status: number; error: () => DomainError }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    error: () => new DomainError('invalid_request', 'The request headers are too large'),
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    error: () =>
      new DomainError('payload_too_large', 'The chunk extensions of the request body are too large'),
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    error: () => new DomainError('invalid_request', 'The request did not arrive in time'),
  },
};
const MALFORMED = {
  status: 400,
  error: () => new DomainError('invalid_request', 'The request is not valid HTTP/1.1'),
};

/**
 * Writes an error envelope straight to the socket and closes the connection, as Node writes its own
 * answers (no response object exists, or the one that exists may still be waiting for its route).
 * Nothing is written once a response has started: a second status line would corrupt the stream.
 */
function answerOnSocket(socket: ServerSocket, status: number, error: DomainError): void {
  if (!socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorEnvelope(error));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}

/**
 * While a request's body is awaited, a connection on which no byte arrives for `idleMs` is
 * answered 408 and closed: a declared length whose bytes never come would otherwise hold it until
 * Node's `requestTimeout` (minutes). Time the gateway itself holds the body back (a route not yet
 * reading, a slow blob store) does not count: the client is idle only when nothing it sent waits
 * unread. Bytes that keep arriving, however slowly, keep the request alive.
 */
function closeStalledBodies(idleMs: number) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!hasBody(request) || request.complete) return next();
    const socket = request.socket as ServerSocket & Request['socket'];
    socket.setTimeout(idleMs);
    // On the response, which Node tells of a timeout whether or not the body is complete: a listener
    // keeps Node from destroying the socket, so a complete body nobody read disarms the timer here.
    response.on('timeout', () => {
      if (request.complete) return socket.setTimeout(0);
      if (request.readableLength > 0) return socket.setTimeout(idleMs);
      answerOnSocket(
        socket,
        408,
        new DomainError(
          'invalid_request',
          `The request body stopped arriving: no byte for ${idleMs / 1000} s before its declared end`,
        ),
      );
    });
    request.once('end', () => socket.setTimeout(0));
    next();
  };
}

/**
 * Every answer carries the error envelope, Node's own included, and a body that stops arriving
 * frees its connection after `bodyIdleTimeoutMs`.
 */
export function configureConnectionErrors(app: NestExpressApplication, bodyIdleTimeoutMs: number): void {
  const server: Server = app.getHttpServer();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: ServerSocket) => {
    if (err.code === 'ECONNRESET') return socket.destroy();
    const answer = (err.code !== undefined && NODE_ANSWERS[err.code]) || MALFORMED;
    answerOnSocket(socket, answer.status, answer.error());
  });
  app.use(closeStalledBodies(bodyIdleTimeoutMs));
}
