import { type INestApplication } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { DomainError } from '@gw/contracts';
import { errorEnvelope } from '@gw/platform';
import { json, urlencoded } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { MESSAGES_PATH, messagesErrorEnvelope } from '../formats/messages-error.filter';
import { exceedsJsonNesting } from './json-nesting';
import { findJsonHazard } from './json-hazards';

/** Far deeper than any real request (JSON schemas of tools included), far below a stack overflow. */
const MAX_JSON_NESTING = 128;
const FORM_BODY_LIMIT = 1024 * 1024;
/**
 * The most of an unread body the gateway drains (reads and discards, holding nothing) after answering
 * rather than closing the connection. Above the 4 MB JSON limit, so that a body refused for being a
 * little too large still gets its 413: closed while the client is still writing, it sees a broken pipe.
 */
const MAX_DRAINED_BODY_BYTES = 16 * 1024 * 1024;

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
/** The routes that read multipart bodies themselves; on any other route such a body would be read as empty. */
const MULTIPART_ROUTES = new Set(['/api/v1/audio/transcriptions', '/api/v1/storage/files']);

function mediaType(request: IncomingMessage): string | null {
  const header = request.headers['content-type'];
  return header ? header.split(';')[0].trim().toLowerCase() : null;
}

/**
 * JSON is what the API takes; `text/plain` (what `fetch` sends for a string body) and a body
 * without a type are read as JSON too, so a client that forgot the header gets its request served.
 */
function isReadAsJson(type: string | null): boolean {
  return (
    type === null ||
    type === 'application/json' ||
    /^application\/[\w.+-]+\+json$/.test(type) ||
    type === 'text/plain'
  );
}

export function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0'
  );
}

/** In the shape of the route asked for, as its own error filter would answer after routing. */
function reply(request: Request, response: Response, error: DomainError): void {
  const path = request.path.replace(/\/+$/, '').toLowerCase();
  response
    .status(error.status)
    .json(path === MESSAGES_PATH ? messagesErrorEnvelope(error) : errorEnvelope(error));
}

/** Refuses a body in a media type the API cannot read, instead of validating an empty body. */
function rejectUnreadableMediaTypes(request: Request, response: Response, next: NextFunction): void {
  const type = mediaType(request);
  if (!hasBody(request) || isReadAsJson(type) || type === FORM) return next();
  if (type === MULTIPART && MULTIPART_ROUTES.has(request.path)) return next();
  reply(
    request,
    response,
    new DomainError('unsupported_media_type', `Content-Type ${type} is not supported; send application/json`),
  );
}

/**
 * PostgreSQL text cannot hold NUL: a query field with one (or with a reserved key name) is a 400
 * naming it, and an id in the path with one cannot name anything, so it is a 404. Neither needs
 * the body, so both are answered before routing.
 */
function rejectUnsafePathOrQuery(request: Request, response: Response, next: NextFunction): void {
  if (safeDecode(request.path).includes('\u0000'))
    return reply(request, response, new DomainError('not_found', 'Not found'));
  const hazard = findJsonHazard(request.query);
  if (!hazard) return next();
  reply(request, response, new DomainError('invalid_request', hazard.message, hazard.path || null));
}

/**
 * A large body answered before it was read (unknown route, refused credential, a bound) closes its
 * connection, so the rest is never waited for. A small one is drained after the answer (discarded
 * as it arrives, nothing is buffered), so a client that writes its whole body before reading still
 * gets the answer and keeps its connection. Reading the body to its end keeps the connection too.
 */
function closeUnlessBodyRead(request: Request, response: Response, next: NextFunction): void {
  if (!hasBody(request)) return next();
  const declared = request.headers['content-length'];
  if (declared === undefined || Number(declared) > MAX_DRAINED_BODY_BYTES) {
    response.setHeader('Connection', 'close');
    request.once('end', () => {
      if (!response.headersSent) response.removeHeader('Connection');
    });
  }
  // Node drains only a body nobody started to read. A route that stopped half way (an upload
  // refused by its first bytes, or by a service that is down) leaves it paused, and the next
  // request on the connection would wait behind it forever.
  response.once('finish', () => {
    if (!request.complete) request.resume();
  });
  next();
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * The checks that need no body, before routing. Bodies themselves are read by RequestBodyInterceptor,
 * after routing and authentication (see readRequestBody).
 */
export function configureRequestParsing(app: NestExpressApplication): void {
  app.use(closeUnlessBodyRead);
  app.use(rejectUnreadableMediaTypes);
  app.use(rejectUnsafePathOrQuery);
}

const jsonParsers = new Map<number, RequestHandler>();

function jsonParser(limitBytes: number): RequestHandler {
  let parser = jsonParsers.get(limitBytes);
  if (!parser) {
    parser = json({
      limit: limitBytes,
      // Any JSON value is parsed, so a body that is valid JSON but not an object gets that said of it.
      strict: false,
      type: (request: IncomingMessage) => isReadAsJson(mediaType(request)),
      verify: (_request: IncomingMessage, _response: unknown, body: Buffer) => {
        if (exceedsJsonNesting(body, MAX_JSON_NESTING)) {
          // A plain client error: the body parser sets `status` on whatever it is given.
          const error = new Error(
            `The request body nests objects and arrays deeper than ${MAX_JSON_NESTING} levels`,
          );
          throw Object.assign(error, { status: 400, expose: true });
        }
      },
    });
    jsonParsers.set(limitBytes, parser);
  }
  return parser;
}

const formParser = urlencoded({ extended: false, limit: FORM_BODY_LIMIT });

/**
 * A body declared longer than the route takes can never be read: 413 at once, before it holds a
 * large-body slot or a byte of it is read (body-parser would drain it all before answering).
 * Multipart bodies are streamed and bounded by their routes (an upload by the storage service's
 * slot); one over the limit of a route that sets its own (@RequestBodyLimit) is refused here too.
 */
export function refuseDeclaredOverLimit(
  request: IncomingMessage,
  limitBytes: number,
  routeSetsLimit: boolean,
): void {
  if (mediaType(request) === MULTIPART && !routeSetsLimit) return;
  if (Number(request.headers['content-length']) > limitBytes) throw bodyTooLarge(limitBytes);
}

/**
 * Reads a JSON or form body of at most `limitBytes` into `request.body` and checks it: an object,
 * no NUL character, lone surrogate or reserved key. A multipart body is left to its route.
 */
export async function readRequestBody(
  request: Request,
  response: Response,
  limitBytes: number,
): Promise<void> {
  const type = mediaType(request);
  if (!hasBody(request) || type === MULTIPART) return;
  await runParser(jsonParser(limitBytes), request, response, limitBytes);
  await runParser(formParser, request, response, FORM_BODY_LIMIT);
  const body: unknown = request.body;
  if (isReadAsJson(type) && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new DomainError('invalid_request', 'The request body must be a JSON object');
  }
  const hazard = findJsonHazard(body);
  if (hazard) throw new DomainError('invalid_request', hazard.message, hazard.path || null);
}

function runParser(
  parser: RequestHandler,
  request: Request,
  response: Response,
  limitBytes: number,
): Promise<void> {
  return new Promise((resolve, reject) =>
    parser(request, response, (err?: unknown) => (err ? reject(bodyReadError(err, limitBytes)) : resolve())),
  );
}

function bodyTooLarge(limitBytes: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `The request body is too large: this route takes at most ${limitBytes / 1024 / 1024} MB`,
  );
}

/** body-parser's refusals, in the envelope's words. */
function bodyReadError(err: unknown, limitBytes: number): unknown {
  const { type, status, message } = err as { type?: unknown; status?: unknown; message?: unknown };
  if (type === 'entity.parse.failed')
    return new DomainError('invalid_request', 'The request body is not valid JSON');
  if (type === 'entity.too.large') return bodyTooLarge(limitBytes);
  if (typeof message !== 'string') return err;
  if (status === 415) return new DomainError('unsupported_media_type', message);
  if (status === 400) return new DomainError('invalid_request', message);
  return err;
}

/**
 * Nest answers unknown routes under its global prefix; anything else would get Express's HTML page.
 * Registered after the routes, so it only sees what nothing else handled.
 */
export async function answerUnknownRoutesWithEnvelope(app: INestApplication): Promise<void> {
  await app.init();
  (app as NestExpressApplication).use((request: Request, response: Response) => {
    reply(request, response, new DomainError('not_found', `Cannot ${request.method} ${request.path}`));
  });
}
