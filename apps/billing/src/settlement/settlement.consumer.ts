import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { BillingEvents } from '@gw/contracts';
import { DurableEvents, DurableSubscription } from '@gw/platform';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { SettlementService } from './settlement.service';
import { UndeliveredGenerationService } from './undelivered-generation.service';

/** One durable consumer shared by every billing replica: each event is settled by one of them, in group commits. */
export const SETTLEMENT_CONSUMER = 'billing-settlement';

@Injectable()
export class SettlementConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: DurableSubscription | null = null;

  constructor(
    private readonly events: DurableEvents,
    private readonly settlement: SettlementService,
    @Inject(BILLING_ENV) private readonly env: BillingEnv,
    private readonly undelivered: UndeliveredGenerationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.events.subscribeBatches(
      BillingEvents.generationFinished,
      SETTLEMENT_CONSUMER,
      async (events) => {
        const outcomes = await this.settlement.settleBatch(events);
        // Also after a duplicate: a crash between the two must not leave an undelivered generation charged.
        await this.undelivered.afterSettlements(events.filter((_, index) => outcomes[index].ok));
        return outcomes.map((outcome) => (outcome.ok ? { ok: true, value: undefined } : outcome));
      },
      { maxItems: this.env.LEDGER_BATCH_MAX_ITEMS, maxWaitMs: this.env.SETTLEMENT_BATCH_MAX_WAIT_MS },
    );
  }

  /** Before the transport drains: an event in flight finishes (or is redelivered later), none is half-handled. */
  async beforeApplicationShutdown(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
  }
}
