import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { AppMetrics } from '../observability/app-metrics';
import { PeriodicTask } from '../scheduling/periodic-task';
import { type BlobStore } from './blob-store';

/** The longest pause between two sweeps, however long objects may live. */
const MAX_SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * Removes transient objects older than `maxAgeMs`: what a call left when its process died between
 * writing the object and deleting it. Every call ends long before `maxAgeMs`, so a live object is
 * never touched; several replicas may sweep at once, as deleting is idempotent. What it removes is
 * counted in `gw_transient_blobs_swept_total` (no labels: every object is a crash's leftover).
 */
export class TransientBlobSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TransientBlobSweeper');
  private readonly task: PeriodicTask;
  private readonly removed: Counter | null;

  constructor(
    private readonly blobs: BlobStore,
    private readonly maxAgeMs: number,
    metrics?: AppMetrics,
  ) {
    this.removed =
      metrics?.counter({
        name: 'gw_transient_blobs_swept_total',
        help: 'Transient objects (staged audio, claim-checked requests) the sweeper removed as leftovers of a crash',
      }) ?? null;
    this.task = new PeriodicTask('TransientBlobSweeper', Math.min(maxAgeMs, MAX_SWEEP_INTERVAL_MS), () =>
      this.sweep(),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  async sweep(now = new Date()): Promise<number> {
    const removed = await this.blobs.sweepTransient(new Date(now.getTime() - this.maxAgeMs));
    if (removed > 0) this.removed?.inc(removed);
    if (removed > 0) this.logger.log(`Removed ${removed} transient objects older than ${this.maxAgeMs} ms`);
    return removed;
  }
}
