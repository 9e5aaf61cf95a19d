import { IsInt, Min } from 'class-validator';
import { type EnvSchema } from '@gw/platform';

/** The timers of the paid-generation pipeline a service runs (its outbox relay and pruning, its hold keeper). */
export function WithPaidGeneration<Base extends EnvSchema>(base: Base) {
  class PaidGenerationEnv extends base {
    /** How often unpublished generation events are published again. */
    @IsInt()
    @Min(100)
    OUTBOX_RELAY_INTERVAL_MS: number = 5_000;

    /** How often the holds of unfinished generations are renewed; billing's RESERVATION_LEASE_MS must be several times longer. */
    @IsInt()
    @Min(100)
    RESERVATION_RENEW_INTERVAL_MS: number = 15_000;

    /** How long a published generation event stays in the service's outbox before it is deleted. */
    @IsInt()
    @Min(1)
    OUTBOX_RETENTION_HOURS: number = 24;
  }
  return PaidGenerationEnv;
}
