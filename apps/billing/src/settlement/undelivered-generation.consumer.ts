import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { BillingEvents } from '@gw/contracts';
import { DurableEvents, DurableSubscription } from '@gw/platform';
import { UndeliveredGenerationService } from './undelivered-generation.service';

/** One durable consumer shared by every billing replica, beside the settlement one. */
export const UNDELIVERED_CONSUMER = 'billing-undelivered';

@Injectable()
export class UndeliveredGenerationConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: DurableSubscription | null = null;

  constructor(
    private readonly events: DurableEvents,
    private readonly undelivered: UndeliveredGenerationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.events.subscribe(
      BillingEvents.generationUndelivered,
      UNDELIVERED_CONSUMER,
      async (event) => {
        await this.undelivered.report(event);
      },
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = null;
    await subscription?.stop();
  }
}
