import { finished, type Readable } from 'node:stream';

/**
 * A response body's reads, taken one at a time by an async reader, with the body in flowing mode.
 * A Readable's own async iterator waits for each read through a `readable` event, a `read()` and a
 * tick: at a model's pace, where every token arrives in a read of its own, that machinery cost a
 * tenth of a streamed answer's CPU (docs/performance.md, round six). Here a read is handed to the
 * waiting reader from the body's `data` event; a read nobody waits for is queued and the body paused
 * until it is taken, so a slow reader holds the provider back as before. The body's end and its
 * failure are what `stream.finished` reports, as the iterator reported them.
 */
export class BodyReads {
  private readonly queued: Buffer[] = [];
  private waiting: { resolve: (read: Buffer | null) => void; reject: (err: unknown) => void } | null = null;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private readonly stopWatching: () => void;
  private readonly onData = (read: Buffer) => {
    const waiting = this.waiting;
    if (waiting === null) {
      this.queued.push(read);
      this.body.pause();
      return;
    }
    this.waiting = null;
    waiting.resolve(read);
  };

  constructor(private readonly body: Readable) {
    body.on('data', this.onData);
    this.stopWatching = finished(body, (err) => {
      if (err) this.failure = { error: err };
      else this.ended = true;
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting === null) return;
      if (err) waiting.reject(err);
      else waiting.resolve(null);
    });
  }

  /** The next read, or null once the body has ended; rejects with the body's failure. */
  next(): Promise<Buffer | null> {
    const read = this.queued.shift();
    if (read !== undefined) {
      if (this.queued.length === 0 && this.failure === null && !this.ended) this.body.resume();
      return Promise.resolve(read);
    }
    if (this.failure !== null) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Stops taking reads: the body is left flowing, for whoever reads or destroys it next. */
  release(): void {
    this.body.off('data', this.onData);
    this.stopWatching();
    this.queued.length = 0;
    if (this.body.isPaused()) this.body.resume();
  }
}
