import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gw/platform';
import { GenerationOutboxRepository } from './generation-outbox.repository';
import { GenerationRecorder } from './generation-recorder.service';

export const OUTBOX_RELAY_INTERVAL = Symbol('OUTBOX_RELAY_INTERVAL');
const BATCH = 100;

/**
 * Republishes events whose publish did not complete (broker down, crash between commit and
 * publish): everything pending at start, then rows older than one interval, so it does not race
 * the publish that follows each commit.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  constructor(
    private readonly outbox: GenerationOutboxRepository,
    private readonly recorder: GenerationRecorder,
    @Inject(OUTBOX_RELAY_INTERVAL) intervalMs: number,
  ) {
    this.task = new PeriodicTask('Outbox relay', intervalMs, ({ first }) =>
      this.relay(new Date(first ? Date.now() : Date.now() - intervalMs)),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Publishes stored, unpublished events created before `before`; returns how many were published. */
  async relay(before: Date): Promise<number> {
    let published = 0;
    const rows = await this.outbox.findUnpublishedOlderThan(before, BATCH);
    for (const row of rows) {
      if (await this.recorder.publish(row.organizationId, row)) published++;
    }
    return published;
  }
}
