import { IsInt, Max, Min } from 'class-validator';
import { ServiceEnv } from '@gw/platform';

export class BillingEnv extends ServiceEnv {
  /** A hold that no generation-finished event settles is released after this long (a crashed caller must not lock money forever). */
  @IsInt()
  @Min(100)
  @Max(7 * 24 * 3_600_000)
  RESERVATION_TTL_MS: number = 900_000;

  /**
   * A hold lives this long past its last renewal by the service running the generation (which
   * renews every RESERVATION_RENEW_INTERVAL_MS), so a hold whose process died is released within
   * about this long; RESERVATION_TTL_MS stays the cap on a hold however often it is renewed.
   */
  @IsInt()
  @Min(100)
  @Max(7 * 24 * 3_600_000)
  RESERVATION_LEASE_MS: number = 45_000;

  /**
   * Money operations (reserves, settlements) are applied in group commits: a batch starts when
   * this many wait, or LEDGER_BATCH_MAX_WAIT_MS (settlements: SETTLEMENT_BATCH_MAX_WAIT_MS) after
   * the first of them arrived. Reserves wait only while another batch is in flight: with none
   * running, a reserve starts at the end of the event loop's turn.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  LEDGER_BATCH_MAX_ITEMS: number = 200;

  @IsInt()
  @Min(0)
  @Max(1_000)
  LEDGER_BATCH_MAX_WAIT_MS: number = 1;

  /**
   * How long a settlement batch waits for more events after its first: settlement is off the
   * request path, so waiting a little gathers several chats into one transaction even at low load.
   */
  @IsInt()
  @Min(0)
  @Max(1_000)
  SETTLEMENT_BATCH_MAX_WAIT_MS: number = 50;

  /** Reserve batches that may run at once (each holds a database connection until it commits). */
  @IsInt()
  @Min(1)
  @Max(8)
  LEDGER_BATCH_MAX_IN_FLIGHT: number = 2;
}

export const BILLING_ENV = Symbol('BILLING_ENV');
