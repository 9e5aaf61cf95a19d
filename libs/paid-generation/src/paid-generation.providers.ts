import type { Provider } from '@nestjs/common';
import { GenerationBilling } from './generation-billing.service';
import { GenerationOutboxRepository, PAID_GENERATION_TABLES } from './generation-outbox.repository';
import { GenerationRecorder } from './generation-recorder.service';
import { OutboxMetrics } from './outbox-metrics';
import { OUTBOX_RETENTION, OutboxPruner } from './outbox-pruner.service';
import { OUTBOX_RELAY_INTERVAL, OutboxRelay } from './outbox-relay.service';
import type { PaidGenerationTables } from './paid-generation-tables';
import { RESERVATION_RENEW_INTERVAL, ReservationLeases } from './reservation-leases.service';

export interface PaidGenerationOptions {
  /** The service's own tables (paidGenerationTables), also listed among its database's entities. */
  tables: PaidGenerationTables;
  outboxRelayIntervalMs: number;
  /** How long a published event stays in the outbox before it is deleted. */
  outboxRetentionMs: number;
  /** How often the holds of running generations are renewed: well under billing's RESERVATION_LEASE_MS. */
  reservationRenewIntervalMs: number;
}

/**
 * Reserve → record → outbox → relay for one service, as providers of that service's root module:
 * they use the module's own DataSource, RpcClient and DurableEvents, so each service keeps its
 * schema and its transport. Services inject GenerationBilling.
 */
export function paidGenerationProviders(options: PaidGenerationOptions): Provider[] {
  return [
    { provide: PAID_GENERATION_TABLES, useValue: options.tables },
    { provide: OUTBOX_RELAY_INTERVAL, useValue: options.outboxRelayIntervalMs },
    { provide: OUTBOX_RETENTION, useValue: options.outboxRetentionMs },
    { provide: RESERVATION_RENEW_INTERVAL, useValue: options.reservationRenewIntervalMs },
    ReservationLeases,
    GenerationOutboxRepository,
    GenerationRecorder,
    GenerationBilling,
    OutboxRelay,
    OutboxPruner,
    OutboxMetrics,
  ];
}
