import { endSpanWithError, type Span, SpanKind, startSpan, tracer } from '@gw/platform';

/**
 * The operation of a model call, as OpenTelemetry's GenAI conventions name it (`gen_ai.operation.name`):
 * their well-known values, `generate_content` for the multimodal ones (images, video, speech,
 * transcriptions), which none of the narrower values fits.
 */
export type ModelCallOperation = 'chat' | 'embeddings' | 'generate_content';

/** The provider and model a call goes to (a catalogue's ProviderRoute is one). */
export interface ModelCallRoute {
  name: string;
  baseUrl: string;
  upstreamModel: string;
}

/** The model call's outcome as the span records it. */
export type ModelCallEnd =
  | { kind: 'finished'; finishReason: string; usage: { prompt_tokens: number; completion_tokens: number } }
  /** Answered, with no finish reason or token usage to tell (a media provider's answer). */
  | { kind: 'answered' }
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
  /** `gen_ai.output.type`: `text`, `image`, `speech` (the convention's values), `video`. */
  output_type?: string;
}

/**
 * A client span `<operation> <model>` (`chat gpt-4o`, `generate_content dall-e-3`) under the current
 * one: the provider, the model and what was asked at the start, the finish reason and token usage at
 * the end (GenAI semantic conventions, `gen_ai.*`). Tracing off, a shared object that records nothing.
 */
export function traceModelCall(
  operation: ModelCallOperation,
  route: ModelCallRoute,
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
    ...(request.output_type !== undefined ? { 'gen_ai.output.type': request.output_type } : {}),
  });
  return {
    ended: (end) => recordEnd(span, end),
    failed: (err) => endSpanWithError(span, err),
  };
}

/**
 * Runs one provider call inside its span: ended as `end` tells from the answer (answered, by
 * default), failed with the error the call threw.
 */
export async function tracedModelCall<T>(
  operation: ModelCallOperation,
  route: ModelCallRoute,
  request: ModelCallRequest,
  call: () => Promise<T>,
  end: (answer: T) => ModelCallEnd = () => ({ kind: 'answered' }),
): Promise<T> {
  const trace = traceModelCall(operation, route, request);
  if (trace === UNTRACED) return call();
  try {
    const answer = await call();
    trace.ended(end(answer));
    return answer;
  } catch (err) {
    trace.failed(err);
    throw err;
  }
}

function recordEnd(span: Span, end: ModelCallEnd): void {
  if (end.kind === 'broken') return endSpanWithError(span, end.error);
  if (end.kind === 'finished') {
    span.setAttributes({
      'gen_ai.response.finish_reasons': [end.finishReason],
      'gen_ai.usage.input_tokens': end.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': end.usage.completion_tokens,
    });
  } else if (end.kind === 'cancelled') {
    span.setAttribute('gen_ai.response.finish_reasons', ['cancelled']);
  }
  span.end();
}
