import { IsInt, Min } from 'class-validator';
import { ServiceEnv } from '@gw/platform';

export class MediaEnv extends ServiceEnv {
  /** How often unpublished generation events are published again. */
  @IsInt()
  @Min(100)
  OUTBOX_RELAY_INTERVAL_MS: number = 5_000;

  /** How often the holds of running generations are renewed; billing's RESERVATION_LEASE_MS must be several times longer. */
  @IsInt()
  @Min(100)
  RESERVATION_RENEW_INTERVAL_MS: number = 15_000;
}
