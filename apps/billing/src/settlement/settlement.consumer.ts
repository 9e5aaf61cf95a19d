import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { BillingEvents } from '@gw/contracts';
import { DurableEvents, DurableSubscription } from '@gw/platform';
import { SettlementService } from './settlement.service';
import { UndeliveredGenerationService } from './undelivered-generation.service';

/** One durable consumer shared by every billing replica: each event is settled by one of them. */
export const SETTLEMENT_CONSUMER = 'billing-settlement';

@Injectable()
export class SettlementConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: DurableSubscription | null = null;

  constructor(
    private readonly events: DurableEvents,
    private readonly settlement: SettlementService,
    private readonly undelivered: UndeliveredGenerationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.events.subscribe(
      BillingEvents.generationFinished,
      SETTLEMENT_CONSUMER,
      async (event) => {
        await this.settlement.settle(event);
        // Also on a duplicate: a crash between the two must not leave an undelivered generation charged.
        await this.undelivered.afterSettlement(event.organizationId, event.generationId);
      },
    );
  }

  /** Before the transport drains: an event in flight finishes (or is redelivered later), none is half-handled. */
  async beforeApplicationShutdown(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
  }
}
