import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { GenerationFinishedEvent } from '@gw/contracts';
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
  private readonly logger = new Logger('OutboxRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly outbox: GenerationOutboxRepository,
    private readonly recorder: GenerationRecorder,
    @Inject(OUTBOX_RELAY_INTERVAL) private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.run(new Date());
    this.timer = setInterval(() => this.run(new Date(Date.now() - this.intervalMs)), this.intervalMs);
    this.timer.unref();
  }

  private run(before: Date): void {
    this.running ??= this.relay(before).finally(() => (this.running = undefined));
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Publishes stored, unpublished events created before `before`; returns how many were published. */
  async relay(before: Date): Promise<number> {
    let published = 0;
    try {
      const rows = await this.outbox.findUnpublishedOlderThan(before, BATCH);
      for (const row of rows) {
        if (
          await this.recorder.publish(
            row.organizationId,
            row.messageId,
            row.payload as GenerationFinishedEvent,
          )
        )
          published++;
      }
    } catch (err) {
      this.logger.warn(`Outbox relay failed: ${(err as Error).message}`);
    }
    return published;
  }
}
