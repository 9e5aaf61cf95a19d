import { type Observable, of } from 'rxjs';
import { tracer } from '../observability/tracing';
import { InProcessContext } from './in-process-context';

/**
 * A stream's frames handed to the in-process bus as one value. Nest wraps a handler's Observable
 * in an operator per interceptor (a `mergeAll` each, a `switchMap`, a `catchError`), and every
 * frame crossed all of them even where, in one process, the interceptors pass the stream through
 * (decision 195). Handed this way, Nest's pipeline carries the wrapper once; the in-process server
 * subscribes to the frames itself and gives each to the caller in the turn it is produced.
 */
export class HandedFrames<T> {
  constructor(readonly frames: Observable<T>) {}
}

/**
 * What a stream handler returns: in one process, its frames handed past Nest's pipeline; over NATS,
 * or with tracing on (whose spans the pipeline makes), the frames themselves, through interceptors
 * that do their work there (heartbeats, the gone-caller watch).
 */
export function replyFrames<T>(context: unknown, frames: Observable<T>): Observable<T | HandedFrames<T>> {
  return context instanceof InProcessContext && tracer() === null ? of(new HandedFrames(frames)) : frames;
}
