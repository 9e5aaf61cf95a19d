import { DomainError } from '@gw/contracts';
import { defer, type MonoTypeOperatorFunction, type Observable, tap } from 'rxjs';
import type { Histogram } from 'prom-client';
import { type AppMetrics, BoundChildren } from '../observability/app-metrics';

/** Bus calls last from a millisecond (a cached answer) to the longest generation. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * How long the app's calls over the bus take and how they end, by subject: `ok`, the error code
 * the call failed with (a bounded set), or `cancelled` for a stream its caller left.
 */
export class RpcMetrics {
  private readonly seconds: BoundChildren<Histogram.Internal<'subject' | 'outcome'>>;

  constructor(metrics: AppMetrics) {
    const histogram = metrics.histogram({
      name: 'gw_nats_request_duration_seconds',
      help: 'Calls over the bus (NATS or in-process) by subject and outcome, until the answer or the end of the stream',
      labelNames: ['subject', 'outcome'],
      buckets: SECONDS_BUCKETS,
    });
    this.seconds = new BoundChildren((subject, outcome) => histogram.labels({ subject, outcome }));
  }

  observeAnswer(subject: string, answer: Promise<unknown>): void {
    const started = performance.now();
    answer.then(
      () => this.observe(subject, 'ok', started),
      (err: unknown) => this.observe(subject, outcomeOf(err), started),
    );
  }

  observeStream<Chunk>(subject: string): MonoTypeOperatorFunction<Chunk> {
    return (source: Observable<Chunk>) =>
      defer(() => {
        const end = this.startStream(subject);
        return source.pipe(
          tap({
            complete: () => end('ok'),
            error: (err: unknown) => end(outcomeOf(err)),
            unsubscribe: () => end('cancelled'),
          }),
        );
      });
  }

  /** Starts timing a stream; the function returned records how it ended, the first time it is called. */
  startStream(subject: string): (outcome: string) => void {
    const started = performance.now();
    let ended = false;
    return (outcome) => {
      if (ended) return;
      ended = true;
      this.observe(subject, outcome, started);
    };
  }

  private observe(subject: string, outcome: string, started: number): void {
    this.seconds.get(subject, outcome).observe((performance.now() - started) / 1000);
  }
}

/** How a call ended, as the histogram's `outcome` label: the error code, a bounded set. */
export function outcomeOf(err: unknown): string {
  return err instanceof DomainError ? err.code : 'error';
}
