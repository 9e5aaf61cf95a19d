import { type INestApplication } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { DomainError } from '@gw/contracts';
import { errorEnvelope } from '@gw/platform';
import { json, urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { exceedsJsonNesting } from './json-nesting';
import { findJsonHazard } from './json-hazards';

/** A transcription's 25 MB of audio as a base64 data URL, plus the rest of its JSON body. */
const JSON_BODY_LIMIT = '40mb';
/** Far deeper than any real request (JSON schemas of tools included), far below a stack overflow. */
const MAX_JSON_NESTING = 128;

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';
/** The routes that read multipart bodies themselves; on any other route such a body would be read as empty. */
const MULTIPART_ROUTES = new Set(['/api/v1/audio/transcriptions']);

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

function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0'
  );
}

function reply(response: Response, error: DomainError): void {
  response.status(error.status).json(errorEnvelope(error));
}

/** Refuses a body in a media type the API cannot read, instead of validating an empty body. */
function rejectUnreadableMediaTypes(request: Request, response: Response, next: NextFunction): void {
  const type = mediaType(request);
  if (!hasBody(request) || isReadAsJson(type) || type === FORM) return next();
  if (type === MULTIPART && MULTIPART_ROUTES.has(request.path)) return next();
  reply(
    response,
    new DomainError('unsupported_media_type', `Content-Type ${type} is not supported; send application/json`),
  );
}

/**
 * PostgreSQL text cannot hold NUL: a body or query field with one (or with a reserved key name)
 * is a 400 naming it, and an id in the path with one cannot name anything, so it is a 404.
 */
function rejectJsonHazards(request: Request, response: Response, next: NextFunction): void {
  if (safeDecode(request.path).includes('\u0000'))
    return reply(response, new DomainError('not_found', 'Not found'));
  const body: unknown = request.body;
  if (
    hasBody(request) &&
    isReadAsJson(mediaType(request)) &&
    (typeof body !== 'object' || body === null || Array.isArray(body))
  ) {
    return reply(response, new DomainError('invalid_request', 'The request body must be a JSON object'));
  }
  const hazard = findJsonHazard(request.query) ?? findJsonHazard(request.body);
  if (!hazard) return next();
  reply(response, new DomainError('invalid_request', hazard.message, hazard.path || null));
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Body parsing and the checks that must run before any route sees the request. */
export function configureRequestParsing(app: NestExpressApplication): void {
  app.use(rejectUnreadableMediaTypes);
  app.use(
    json({
      limit: JSON_BODY_LIMIT,
      // Any JSON value is parsed, so a body that is valid JSON but not an object gets that said of it.
      strict: false,
      type: (request: IncomingMessage) => isReadAsJson(mediaType(request)),
      // Nest reserves useBodyParser's `verify`, hence express.json itself.
      verify: (_request: IncomingMessage, _response: unknown, body: Buffer) => {
        if (exceedsJsonNesting(body, MAX_JSON_NESTING)) {
          // A plain client error: the body parser sets `status` on whatever it is given.
          const error = new Error(
            `The request body nests objects and arrays deeper than ${MAX_JSON_NESTING} levels`,
          );
          throw Object.assign(error, { status: 400, expose: true });
        }
      },
    }),
  );
  app.use(urlencoded({ extended: false, limit: '1mb' }));
  app.use(rejectJsonHazards);
}

/**
 * Nest answers unknown routes under its global prefix; anything else would get Express's HTML page.
 * Registered after the routes, so it only sees what nothing else handled.
 */
export async function answerUnknownRoutesWithEnvelope(app: INestApplication): Promise<void> {
  await app.init();
  (app as NestExpressApplication).use((request: Request, response: Response) => {
    reply(response, new DomainError('not_found', `Cannot ${request.method} ${request.path}`));
  });
}
