import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { BillingEvents, type GenerationUndeliveredEvent } from '@gw/contracts';
import { DurableEvents, PeriodicTask } from '@gw/platform';

/** How often reports JetStream has not stored yet are published again (the broker is usually what was away). */
const RETRY_INTERVAL_MS = 1_000;
/** The reports one gateway keeps while the broker is away; past this a report is logged and dropped. */
const MAX_PENDING_REPORTS = 10_000;

/**
 * Tells billing about generations whose answer the gateway could not deliver, so that they are not
 * charged (decision 65). The gateway keeps no database: a report lives here until JetStream stored
 * it, and is published again every second meanwhile, since it is mostly made while the bus is away.
 */
@Injectable()
export class UndeliveredGenerations
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('UndeliveredGenerations');
  private readonly pending = new Map<string, GenerationUndeliveredEvent>();
  private readonly retries = new PeriodicTask('Undelivered generation reports', RETRY_INTERVAL_MS, () =>
    this.publishPending(),
  );

  constructor(private readonly events: DurableEvents) {}

  onApplicationBootstrap(): void {
    this.retries.start();
  }

  /** Publishes at once; a report JetStream did not store is kept for the retries. */
  report(event: GenerationUndeliveredEvent): void {
    if (this.pending.size >= MAX_PENDING_REPORTS) {
      this.logger.error(`Generation ${event.generationId} may be charged: too many undelivered reports wait`);
      return;
    }
    this.pending.set(event.generationId, event);
    this.publish(event).catch(() => undefined);
  }

  /** One last try before the transport closes: a report still pending then is lost, and logged. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.retries.stop();
    await this.publishPending().catch(() => undefined);
    for (const generationId of this.pending.keys()) {
      this.logger.error(`Generation ${generationId} may be charged: its undelivered report was not stored`);
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.retries.stop();
  }

  private async publishPending(): Promise<void> {
    for (const event of [...this.pending.values()]) await this.publish(event);
  }

  private async publish(event: GenerationUndeliveredEvent): Promise<void> {
    // The id deduplicates the retries of one report in JetStream; billing is idempotent besides.
    await this.events.publish(
      BillingEvents.generationUndelivered,
      event,
      `undelivered-${event.generationId}`,
    );
    this.pending.delete(event.generationId);
  }
}
