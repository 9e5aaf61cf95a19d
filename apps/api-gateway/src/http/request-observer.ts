import type { LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Principal } from '@gw/contracts';
import {
  acceptRequestId,
  type AppMetrics,
  BoundChildren,
  contextFromHeaders,
  REQUEST_ID_HEADER,
  requestIds,
  scrapeMetrics,
  SpanKind,
  SpanStatusCode,
  startSpan,
  traceContext,
  type TraceContext,
  tracer,
  truncateForLog,
} from '@gw/platform';
import type { Express, NextFunction, Request, Response } from 'express';
import { takeAnswerCost } from './answer-cost';

/** From a cached model list to the longest generation. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** The status of a request whose client went away before its answer was finished (nginx's). */
const CLIENT_CLOSED = '499';
/** The route of a request that matched none: a raw path would make the label set unbounded. */
const UNMATCHED = 'unmatched';

/** Responses a rate limit refused, until their request is counted. */
const refusedByRateLimit = new WeakSet<Response>();

/** Marks a response as a rate limit's refusal, for the refusals counter. */
export function markRateLimitRefusal(response: Response): void {
  refusedByRateLimit.add(response);
}

type ObservedRequest = Request & { principal?: Principal };

/**
 * The first middleware of the gateway: names every request (a well-formed `x-request-id` of the
 * client's, else a new one) in its answer and in every log line and bus call made for it, and, when
 * the answer ends, counts it by route template and status and writes its access-log line (with
 * the answer's cost when the route recorded one: noteAnswerCost).
 */
export function observeRequests(
  app: NestExpressApplication,
  metrics: AppMetrics,
  logger: LoggerService,
): void {
  const duration = metrics.histogram({
    name: 'gw_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, until the answer (or its stream) ended',
    labelNames: ['method', 'route', 'status'],
    buckets: SECONDS_BUCKETS,
  });
  const refusals = metrics.counter({
    name: 'gw_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429), by route template',
    labelNames: ['route'],
  });
  const durations = new BoundChildren((method, route, status) => duration.labels({ method, route, status }));
  const refusalsByRoute = new BoundChildren((route) => refusals.labels({ route }));

  app.use((request: ObservedRequest, response: Response, next: NextFunction) => {
    const requestId = acceptRequestId(request.headers[REQUEST_ID_HEADER]);
    const started = performance.now();
    response.setHeader(REQUEST_ID_HEADER, requestId);
    const traced = traceRequest(request);
    response.once('close', () => {
      const latencyMs = performance.now() - started;
      const route = routeOf(request);
      const status = response.writableFinished ? String(response.statusCode) : CLIENT_CLOSED;
      traced?.end(route, Number(status));
      durations.get(request.method, route, status).observe(latencyMs / 1000);
      if (refusedByRateLimit.delete(response)) refusalsByRoute.get(route).inc();
      requestIds.run(requestId, () => {
        logger.log(
          {
            message: 'request',
            method: request.method,
            route,
            status: Number(status),
            latencyMs: Math.round(latencyMs),
            keyId: keyIdOf(request.principal),
            model: modelOf(request.body),
            costRub: takeAnswerCost(response),
          },
          'AccessLog',
        );
      });
    });
    requestIds.run(requestId, traced ? () => traceContext.with(traced.context, next) : next);
  });
}

/**
 * The server span of a request when tracing is on, under the trace context the client sent if any;
 * it is named by its route template once routing has found it.
 */
function traceRequest(
  request: Request,
): { context: TraceContext; end(route: string, status: number): void } | null {
  const active = tracer();
  if (active === null) return null;
  const parent = contextFromHeaders((name) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : undefined;
  });
  const { span, context } = startSpan(
    active,
    request.method,
    SpanKind.SERVER,
    { 'http.request.method': request.method, 'url.path': request.path },
    parent,
  );
  return {
    context,
    end: (route, status) => {
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** Serves the process's metrics at `/metrics`, beside (not under) the API's `/api` prefix. */
export function serveMetrics(app: NestExpressApplication): void {
  const express: Express = app.getHttpAdapter().getInstance();
  express.get('/metrics', (_request: Request, response: Response) => {
    void scrapeMetrics().then(
      ({ contentType, body }) => response.type(contentType).send(body),
      (err: unknown) => response.status(500).type('text/plain').send(String(err)),
    );
  });
}

/** The route template express matched (`/api/v1/generations/:id`), never the raw path. */
function routeOf(request: Request): string {
  const path: unknown = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : UNMATCHED;
}

function keyIdOf(principal: Principal | undefined): string | null {
  return principal?.kind === 'api_key' ? principal.apiKeyId : null;
}

function modelOf(body: unknown): string | null {
  const model = (body as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' ? truncateForLog(model) : null;
}
