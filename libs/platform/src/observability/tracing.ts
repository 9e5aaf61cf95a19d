import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { StartupError } from '../env/load-env';

/** Where spans go: an OTLP/HTTP collector, under this service name. */
export interface TracingConfig {
  serviceName: string;
  /** The base endpoint or the traces endpoint, as the variable that named it. */
  endpoint: string;
}

/**
 * Tracing from OpenTelemetry's own variables: on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` names a collector, off otherwise or with `OTEL_SDK_DISABLED=true`.
 * `OTEL_SERVICE_NAME` overrides the app's name. A malformed endpoint stops the start naming it.
 */
export function tracingConfig(appName: string, env: NodeJS.ProcessEnv): TracingConfig | null {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return null;
  const variable = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : env['OTEL_EXPORTER_OTLP_ENDPOINT']
      ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
      : null;
  if (variable === null) return null;
  const endpoint = env[variable] as string;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new StartupError(`${variable} must be an http(s) URL of an OTLP collector, not ${endpoint}`);
  }
  return { serviceName: env['OTEL_SERVICE_NAME']?.trim() || appName, endpoint };
}

/**
 * Null while tracing is off. Every instrumented path asks `tracer()` first and, off, goes on
 * without touching the OpenTelemetry API: no span objects, no context switches, no headers.
 */
let activeTracer: Tracer | null = null;
let provider: NodeTracerProvider | null = null;

/** The process's tracer, or null when tracing is off. */
export function tracer(): Tracer | null {
  return activeTracer;
}

/**
 * Starts exporting spans over OTLP/HTTP (JSON) in batches, with W3C trace context as the format
 * that crosses NATS, and AsyncLocalStorage carrying the current span through a request's awaits.
 * The exporter reads its own endpoint, headers and timeout variables.
 */
export function startTracing(config: TracingConfig | null): void {
  if (config === null || provider !== null) return;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  activeTracer = trace.getTracer('model-gateway');
}

/** Sends the spans still batched; the stop of every app runs it before the process exits. */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush().catch(() => undefined);
}

/** Ends `span` with an error status naming the failure, as OpenTelemetry's `error.type` does. */
export function endSpanWithError(span: Span, err: unknown): void {
  const code = (err as { code?: unknown } | null)?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : ((err as Error)?.name ?? 'Error'));
  span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
  span.end();
}

/** A span of `kind` under the current context (or `parent`), and the context in which it is the current one. */
export function startSpan(
  active: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context = context.active(),
): { span: Span; context: Context } {
  const span = active.startSpan(name, { kind, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** The trace context of `ctx` as W3C headers (`traceparent`, `tracestate`), for a message to carry. */
export function traceHeaders(ctx: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The context a message's headers carry, read through `get`. */
export function contextFromHeaders(get: (name: string) => string | undefined): Context {
  return propagation.extract(context.active(), null, {
    get: (_carrier, key) => get(key),
    keys: () => ['traceparent', 'tracestate'],
  });
}

/** The current trace and span ids, for a log line; none outside a span or while tracing is off. */
export function currentTraceIds(): { traceId: string; spanId: string } | null {
  if (activeTracer === null) return null;
  const span = trace.getActiveSpan();
  if (!span) return null;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

export { context as traceContext, SpanKind, SpanStatusCode };
export type { Span, Context as TraceContext };
