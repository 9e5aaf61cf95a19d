import { Injectable, Optional } from '@nestjs/common';
import type { TokenUsage } from '@gw/contracts';
import { AppMetrics, BoundChildren, ScrapeReading } from '@gw/platform';
import type { Decimal } from 'decimal.js';
import type { Counter } from 'prom-client';
import { LedgerRepository } from '../ledger/ledger.repository';

/** What billing took for one generation it settled: its catalogue model, its tokens and the charge. */
export interface BilledGeneration {
  model: string;
  usage: TokenUsage | null;
  charge: Decimal;
}

/**
 * Billing's figures by catalogue model (bounded by the catalogue, never by organization or key):
 * tokens and roubles billed, counted when a settlement commits; the holds that expired unsettled;
 * and the holds open now with what they hold, read at scrape time.
 */
@Injectable()
export class BillingMetrics {
  private readonly tokens: BoundChildren<Counter.Internal> | null = null;
  private readonly roubles: BoundChildren<Counter.Internal> | null = null;
  private readonly expired: Counter | null = null;

  constructor(ledger: LedgerRepository, @Optional() metrics?: AppMetrics) {
    if (!metrics) return;
    const tokens = metrics.counter({
      name: 'gw_billed_tokens_total',
      help: 'Tokens of the generations billing settled, by model and kind (prompt, completion)',
      labelNames: ['model', 'kind'],
    });
    const roubles = metrics.counter({
      name: 'gw_billed_rub_total',
      help: 'Roubles charged for the generations billing settled, by model',
      labelNames: ['model'],
    });
    this.tokens = new BoundChildren((model, kind) => tokens.labels({ model, kind }));
    this.roubles = new BoundChildren((model) => roubles.labels({ model }));
    this.expired = metrics.counter({
      name: 'gw_reservations_expired_total',
      help: 'Holds the reservation sweeper released because their generation never reported back',
    });
    const holds = new ScrapeReading(() => ledger.openHolds());
    metrics.gaugeAtScrape(
      { name: 'gw_open_holds', help: 'Reservations held and not yet settled or released' },
      holds,
      (open) => [{ value: open.count }],
    );
    metrics.gaugeAtScrape(
      { name: 'gw_open_holds_rub', help: 'Roubles held by the open reservations together' },
      holds,
      (open) => [{ value: open.amount.toNumber() }],
    );
  }

  /** After the settlement that billed them committed: a batch undone counts nothing. */
  billed(generations: readonly BilledGeneration[]): void {
    if (!this.tokens || !this.roubles) return;
    for (const { model, usage, charge } of generations) {
      if (usage) {
        this.tokens.get(model, 'prompt').inc(usage.prompt_tokens);
        this.tokens.get(model, 'completion').inc(usage.completion_tokens);
      }
      if (charge.greaterThan(0)) this.roubles.get(model).inc(charge.toNumber());
    }
  }

  reservationExpired(): void {
    this.expired?.inc();
  }
}
