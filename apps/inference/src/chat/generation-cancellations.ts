import { UpstreamAbort } from '../providers/upstream-abort';

/** How long a cancellation that arrived before its generation started is remembered. */
export const EARLY_CANCELLATION_TTL_MS = 60_000;
const MAX_EARLY_CANCELLATIONS = 10_000;

/**
 * The generations this replica is running, by id, each with the abort signal of its upstream
 * calls. A cancellation can overtake the request it cancels (the gateway broadcasts it the moment
 * its client leaves), so an unknown id is remembered for a while and aborts the generation at once
 * when it starts.
 */
export class GenerationCancellations {
  private readonly running = new Map<string, UpstreamAbort>();
  private readonly early = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Registers a generation; the returned signal aborts when the generation is cancelled. */
  open(generationId: string): UpstreamAbort {
    const signal = new UpstreamAbort();
    const cancelledAt = this.early.get(generationId);
    this.early.delete(generationId);
    if (cancelledAt !== undefined && this.now() - cancelledAt <= EARLY_CANCELLATION_TTL_MS) signal.abort();
    else this.running.set(generationId, signal);
    return signal;
  }

  close(generationId: string): void {
    this.running.delete(generationId);
  }

  /** Aborts the generation if this replica runs it; true when it did. */
  cancel(generationId: string): boolean {
    const signal = this.running.get(generationId);
    if (signal) {
      this.running.delete(generationId);
      signal.abort();
      return true;
    }
    this.remember(generationId);
    return false;
  }

  private remember(generationId: string): void {
    const now = this.now();
    for (const [id, at] of this.early) {
      if (now - at <= EARLY_CANCELLATION_TTL_MS && this.early.size < MAX_EARLY_CANCELLATIONS) break;
      this.early.delete(id);
    }
    this.early.set(generationId, now);
  }
}
