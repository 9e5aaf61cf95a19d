import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { GenerationEntity, ModelNameEntity } from '../history/generation.entity';
import { AccountEntity } from '../ledger/account.entity';
import { LedgerEntryEntity } from '../ledger/ledger-entry.entity';
import { ReservationEntity } from '../ledger/reservation.entity';
import { SpendingCounterEntity, SpendingLimitEntity } from '../limits/spending-limit.entity';
import { UndeliveredGenerationEntity } from '../settlement/undelivered-generation.entity';
import { CreateBillingTables1763840000000 } from './migrations/1763840000000-create-billing-tables';
import { SpendingLimitsAndHistoryIndexes1764100000000 } from './migrations/1764100000000-spending-limits-and-history-indexes';
import { ListCancelledGenerationsAsFailed1764200000000 } from './migrations/1764200000000-list-cancelled-generations-as-failed';
import { UndeliveredGenerations1764310000000 } from './migrations/1764310000000-undelivered-generations';

export const BILLING_SCHEMA = 'billing';

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function billingDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: BILLING_SCHEMA,
    // A batch of holds sends its statements in two round trips (decision 197).
    pipeline: true,
    entities: [
      AccountEntity,
      LedgerEntryEntity,
      ReservationEntity,
      GenerationEntity,
      ModelNameEntity,
      SpendingLimitEntity,
      SpendingCounterEntity,
      UndeliveredGenerationEntity,
    ],
    migrations: [
      CreateBillingTables1763840000000,
      SpendingLimitsAndHistoryIndexes1764100000000,
      ListCancelledGenerationsAsFailed1764200000000,
      UndeliveredGenerations1764310000000,
    ],
  };
}
