import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { PeriodicTask } from '@gw/platform';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { BILLING_CLOCK, Clock } from '../clock';
import { BillingMetrics } from '../metrics/billing-metrics';
import { SettlementService } from '../settlement/settlement.service';
import { LedgerRepository } from './ledger.repository';

const SWEEP_BATCH = 500;

/**
 * Releases holds whose lease ran out (their generation's process stopped renewing it and never
 * reported back) or that outlived RESERVATION_TTL_MS, and records those generations as failed.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ReservationSweeper');
  private readonly task: PeriodicTask;

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly settlement: SettlementService,
    @Inject(BILLING_ENV) env: BillingEnv,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
    private readonly metrics: BillingMetrics,
  ) {
    // A quarter of the lease keeps a hold at most 25 % past its expiry; the bounds keep a tiny lease from spinning and a huge one responsive.
    const lifetime = Math.min(env.RESERVATION_LEASE_MS, env.RESERVATION_TTL_MS);
    const interval = Math.min(60_000, Math.max(50, Math.floor(lifetime / 4)));
    this.task = new PeriodicTask('Reservation sweep', interval, () => this.sweep());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  private async sweep(): Promise<void> {
    let found: number;
    do {
      const expired = await this.ledger.expiredReservations(this.clock.now(), SWEEP_BATCH);
      found = expired.length;
      let released = 0;
      for (const reservation of expired) {
        if (!this.task.active) return;
        // Another replica (or a settlement) may have taken it first: expire() checks again under the locks.
        if (await this.settlement.expire(reservation)) {
          released += 1;
          this.metrics.reservationExpired();
        }
      }
      if (released > 0) this.logger.log(`Released ${released} expired reservation(s)`);
    } while (found === SWEEP_BATCH && this.task.active);
  }
}
