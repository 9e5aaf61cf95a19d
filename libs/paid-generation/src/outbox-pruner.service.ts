import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gw/platform';
import { GenerationOutboxRepository } from './generation-outbox.repository';

export const OUTBOX_RETENTION = Symbol('OUTBOX_RETENTION');
const PRUNE_INTERVAL_MS = 10 * 60_000;
const BATCH = 1_000;

/**
 * Deletes published events once they are older than the outbox's retention (decision 196). A
 * published event lives on in JetStream and in billing; kept here it only grew the table that every
 * paid generation writes to, by about 1.5 KB each and without end. Unpublished events are never
 * touched, however old: the relay still owes them. Each replica prunes; a row two of them reach
 * at once is deleted once.
 */
@Injectable()
export class OutboxPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OutboxPruner');
  private readonly task: PeriodicTask;
  private stopping = false;

  constructor(
    private readonly outbox: GenerationOutboxRepository,
    @Inject(OUTBOX_RETENTION) private readonly retentionMs: number,
  ) {
    this.task = new PeriodicTask('Outbox pruning', PRUNE_INTERVAL_MS, () => this.prune(new Date()));
  }

  onApplicationBootstrap(): void {
    this.task.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    return this.task.stop();
  }

  /** Deletes the events published and stored more than the retention before `now`, in batches; returns how many. */
  async prune(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.retentionMs);
    let pruned = 0;
    for (;;) {
      const deleted = await this.outbox.deletePublishedBefore(before, BATCH);
      pruned += deleted;
      if (deleted < BATCH || this.stopping) break;
    }
    if (pruned > 0)
      this.logger.log(`Deleted ${pruned} published events stored before ${before.toISOString()}`);
    return pruned;
  }
}
