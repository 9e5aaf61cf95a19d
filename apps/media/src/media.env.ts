import { IsInt, Min } from 'class-validator';
import { ServiceEnv } from '@gw/platform';

export class MediaEnv extends ServiceEnv {
  /** How often unpublished generation events are published again. */
  @IsInt()
  @Min(100)
  OUTBOX_RELAY_INTERVAL_MS: number = 5_000;
}
