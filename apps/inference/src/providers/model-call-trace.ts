import type { ProviderRoute } from '@gw/catalogue';
import { endSpanWithError, type Span, SpanKind, startSpan, tracer } from '@gw/platform';

/** The model call's outcome as the span records it. */
export type ModelCallEnd =
  | { kind: 'finished'; finishReason: string; usage: { prompt_tokens: number; completion_tokens: number } }
  | { kind: 'cancelled' }
  | { kind: 'broken'; error: unknown };

/** One call of a provider's model, as an OpenTelemetry span in GenAI's semantic conventions. */
export interface ModelCallTrace {
  ended(end: ModelCallEnd): void;
  failed(err: unknown): void;
}

const UNTRACED: ModelCallTrace = { ended: () => undefined, failed: () => undefined };

/** What a request asked of the model, in the convention's attribute names. */
export interface ModelCallRequest {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
}

/**
 * A client span `chat <model>` (or `embeddings <model>`) under the current one: the provider, the
 * model and what was asked at the start, the finish reason and token usage at the end (GenAI
 * semantic conventions, `gen_ai.*`). Tracing off, a shared object that records nothing.
 */
export function traceModelCall(
  operation: 'chat' | 'embeddings',
  route: ProviderRoute,
  request: ModelCallRequest,
): ModelCallTrace {
  const active = tracer();
  if (active === null) return UNTRACED;
  const server = new URL(route.baseUrl);
  const { span } = startSpan(active, `${operation} ${route.upstreamModel}`, SpanKind.CLIENT, {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': route.name,
    'gen_ai.request.model': route.upstreamModel,
    'server.address': server.hostname,
    ...(server.port ? { 'server.port': Number(server.port) } : {}),
    ...(request.max_tokens !== undefined ? { 'gen_ai.request.max_tokens': request.max_tokens } : {}),
    ...(request.temperature !== undefined ? { 'gen_ai.request.temperature': request.temperature } : {}),
    ...(request.top_p !== undefined ? { 'gen_ai.request.top_p': request.top_p } : {}),
  });
  return {
    ended: (end) => recordEnd(span, end),
    failed: (err) => endSpanWithError(span, err),
  };
}

function recordEnd(span: Span, end: ModelCallEnd): void {
  if (end.kind === 'broken') return endSpanWithError(span, end.error);
  if (end.kind === 'finished') {
    span.setAttributes({
      'gen_ai.response.finish_reasons': [end.finishReason],
      'gen_ai.usage.input_tokens': end.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': end.usage.completion_tokens,
    });
  } else {
    span.setAttribute('gen_ai.response.finish_reasons', ['cancelled']);
  }
  span.end();
}
