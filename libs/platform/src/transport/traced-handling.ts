import { Observable } from 'rxjs';
import {
  endSpanWithError,
  type Span,
  SpanKind,
  startSpan,
  traceContext,
  type TraceContext,
  tracer,
} from '../observability/tracing';

/**
 * `source` subscribed in the context where `opened` is the current span, which ends with the last
 * frame, the error, or the unsubscription of a caller that left.
 */
export function inSpan<T>(
  opened: () => { span: Span; context: TraceContext },
  source: (context: TraceContext) => Observable<T>,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    const { span, context } = opened();
    const subscription = traceContext.with(context, () =>
      source(context).subscribe({
        next: (value) => subscriber.next(value),
        error: (err: unknown) => {
          endSpanWithError(span, err);
          subscriber.error(err);
        },
        complete: () => {
          span.end();
          subscriber.complete();
        },
      }),
    );
    return () => {
      if (!subscription.closed) span.end();
      subscription.unsubscribe();
    };
  });
}

/**
 * A handler's answer inside a server span, the child of the caller's span (its context arrives in
 * the NATS headers, or with the async context on the in-process bus). The handler runs in the
 * span's context, so what it calls (billing, a provider) is traced below it. Tracing off, the
 * answer as it is.
 */
export function traceHandling<T>(subject: string, answer: () => Observable<T>): Observable<T> {
  const active = tracer();
  if (active === null) return answer();
  return inSpan(
    () =>
      startSpan(active, `process ${subject}`, SpanKind.SERVER, {
        'messaging.destination.name': subject,
        'messaging.operation.type': 'process',
      }),
    answer,
  );
}
