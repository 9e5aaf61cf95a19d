import { EventEmitter } from 'node:events';

/**
 * What stops an upstream call: a Node `AbortSignal`, or an `UpstreamAbort`. undici takes either.
 */
export type UpstreamSignal = AbortSignal | UpstreamAbort;

/**
 * The abort signal of a generation and of each of its provider attempts, as an EventEmitter with
 * `aborted` and `reason`, which undici accepts as a request's signal. On Node 20 an `AbortSignal`
 * costs tens of microseconds per chat where an emitter costs next to nothing: `AbortSignal.any`
 * and every listener added to a signal (undici adds one per request) take several microseconds
 * each (docs/performance.md).
 */
export class UpstreamAbort extends EventEmitter {
  aborted = false;
  private abortError: DOMException | undefined;

  constructor() {
    super();
    // One listener per provider attempt of the generation; a long fallback chain is not a leak.
    this.setMaxListeners(0);
  }

  /**
   * Built when first read: a stream's generation is aborted once more when its client's
   * subscription closes, after the answer has ended, and then nobody reads it.
   */
  get reason(): DOMException | undefined {
    if (this.aborted) this.abortError ??= new DOMException('This operation was aborted', 'AbortError');
    return this.abortError;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }

  /** A signal of its own that also aborts when this one does: one provider attempt of the generation. */
  attempt(): UpstreamAbort {
    const attempt = new UpstreamAbort();
    if (this.aborted) attempt.abort();
    else this.once('abort', () => attempt.abort());
    return attempt;
  }
}
