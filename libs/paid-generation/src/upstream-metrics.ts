import type { GenerationFinishedEvent } from '@gw/contracts';
import { type AppMetrics, BoundChildren } from '@gw/platform';
import type { Counter, Histogram } from 'prom-client';
import type { NewAttempt } from './paid-generation-tables';

/** From an embedding's tens of milliseconds to the longest generation. */
const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

/**
 * The upstream providers as a generation's attempts saw them, by provider and catalogue model (both
 * bounded by the catalogue): how long each attempt took and how it ended, the errors by kind, the
 * fallbacks away from a provider, and the time to the first output. Counted once per generation,
 * when it is recorded finished, from the attempts and the event recorded anyway.
 */
export class UpstreamMetrics {
  private readonly durations: BoundChildren<Histogram.Internal<string>>;
  private readonly errors: BoundChildren<Counter.Internal>;
  private readonly fallbacks: BoundChildren<Counter.Internal>;
  private readonly firstOutput: BoundChildren<Histogram.Internal<string>>;

  constructor(metrics: AppMetrics) {
    const durations = metrics.histogram({
      name: 'gw_upstream_attempt_duration_seconds',
      help: 'Attempts at an upstream provider by provider, model and status (completed, failed, cancelled)',
      labelNames: ['provider', 'model', 'status'],
      buckets: SECONDS_BUCKETS,
    });
    const errors = metrics.counter({
      name: 'gw_upstream_errors_total',
      help: 'Failed upstream attempts by provider, model and kind of failure',
      labelNames: ['provider', 'model', 'kind'],
    });
    const fallbacks = metrics.counter({
      name: 'gw_upstream_fallbacks_total',
      help: 'Moves to the next provider after an attempt failed, by the provider that failed and the model',
      labelNames: ['provider', 'model'],
    });
    const firstOutput = metrics.histogram({
      name: 'gw_upstream_first_output_seconds',
      help: 'Time from the start of a generation to its first output, by answering provider and model',
      labelNames: ['provider', 'model'],
      buckets: SECONDS_BUCKETS,
    });
    this.durations = new BoundChildren((provider, model, status) =>
      durations.labels({ provider, model, status }),
    );
    this.errors = new BoundChildren((provider, model, kind) => errors.labels({ provider, model, kind }));
    this.fallbacks = new BoundChildren((provider, model) => fallbacks.labels({ provider, model }));
    this.firstOutput = new BoundChildren((provider, model) => firstOutput.labels({ provider, model }));
  }

  finished(event: GenerationFinishedEvent, attempts: readonly NewAttempt[]): void {
    const { model } = event;
    attempts.forEach((attempt, index) => {
      this.durations.get(attempt.provider, model, attempt.status).observe(attempt.durationMs / 1000);
      if (attempt.errorCode) this.errors.get(attempt.provider, model, attempt.errorCode).inc();
      if (index < attempts.length - 1) this.fallbacks.get(attempt.provider, model).inc();
    });
    if (event.provider !== null && event.latencyMs !== null)
      this.firstOutput.get(event.provider, model).observe(event.latencyMs / 1000);
  }
}
