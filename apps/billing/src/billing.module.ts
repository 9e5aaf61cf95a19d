import { DynamicModule, Module } from '@nestjs/common';
import { TransportModule, TransportOptions } from '@gw/platform';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { BILLING_ENV, BillingEnv } from './billing.env';
import { BILLING_CLOCK, Clock, systemClock } from './clock';
import { billingDatabase } from './database/billing-database';
import { HistoryHandler } from './history/history.handler';
import { HistoryRepository } from './history/history.repository';
import { HistoryService } from './history/history.service';
import { LedgerBatcher } from './ledger/ledger-batcher.service';
import { HoldExtensionHandler } from './ledger/hold-extension.handler';
import { HoldExtensionService } from './ledger/hold-extension.service';
import { LedgerHandler } from './ledger/ledger.handler';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { ReservationSweeper } from './ledger/reservation-sweeper.service';
import { BillingMetrics } from './metrics/billing-metrics';
import { SpendingLimitHandler } from './limits/spending-limit.handler';
import { SpendingLimitRepository } from './limits/spending-limit.repository';
import { SpendingLimitService } from './limits/spending-limit.service';
import { SettlementConsumer } from './settlement/settlement.consumer';
import { SettlementService } from './settlement/settlement.service';
import { UndeliveredGenerationConsumer } from './settlement/undelivered-generation.consumer';
import { UndeliveredGenerationRepository } from './settlement/undelivered-generation.repository';
import { UndeliveredGenerationService } from './settlement/undelivered-generation.service';

export { BillingEnv } from './billing.env';
export { Clock } from './clock';
export { SETTLEMENT_CONSUMER } from './settlement/settlement.consumer';
export const BILLING_QUEUE = 'billing';

export interface BillingOptions {
  env: BillingEnv;
  transport: TransportOptions;
  /** Tests pass a clock they move across calendar boundaries. */
  clock?: Clock;
}

@Module({})
export class BillingModule {
  static register(options: BillingOptions): DynamicModule {
    const database = billingDatabase(options.env.DATABASE_URL);
    return {
      module: BillingModule,
      imports: [TransportModule.forRoot(options.transport), ServiceDatabaseModule.register(database)],
      controllers: [LedgerHandler, HoldExtensionHandler, HistoryHandler, SpendingLimitHandler],
      providers: [
        { provide: BILLING_ENV, useValue: options.env },
        { provide: BILLING_CLOCK, useValue: options.clock ?? systemClock },
        LedgerRepository,
        BillingMetrics,
        LedgerBatcher,
        LedgerService,
        HoldExtensionService,
        ReservationSweeper,
        SettlementService,
        SettlementConsumer,
        UndeliveredGenerationRepository,
        UndeliveredGenerationService,
        UndeliveredGenerationConsumer,
        HistoryRepository,
        HistoryService,
        SpendingLimitRepository,
        SpendingLimitService,
      ],
    };
  }
}
