import { IsInt, Max, Min } from 'class-validator';
import { WithCatalogue } from '@gw/catalogue';
import { WithPaidGeneration } from '@gw/paid-generation';
import { ServiceEnv } from '@gw/platform';
import { WithBlobStore } from '@gw/platform/blobs';

/** The blob store holds the generated files and the replies too large for the bus (ten base64 images). */
export class MediaEnv extends WithBlobStore(WithPaidGeneration(WithCatalogue(ServiceEnv))) {
  /** Longest wait for a provider's response headers and between two chunks of its body. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  UPSTREAM_TIMEOUT_MS: number = 120_000;

  /** Job steps (provider calls, downloads) one replica runs at once. */
  @IsInt()
  @Min(1)
  @Max(1_000)
  MEDIA_JOB_CONCURRENCY: number = 16;

  /** A job not finished this long after its creation fails (at no cost); below billing's RESERVATION_TTL_MS. */
  @IsInt()
  @Min(1_000)
  @Max(7 * 24 * 3_600_000)
  MEDIA_JOB_DEADLINE_MS: number = 600_000;

  /** How long a job stays its runner's without a renewal: a replica that died leaves its jobs to the others this long after. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  MEDIA_JOB_LEASE_MS: number = 30_000;

  /** The longest a runner sleeps before it looks for due jobs (created by another replica, or left by a dead one). */
  @IsInt()
  @Min(10)
  @Max(60_000)
  MEDIA_IDLE_POLL_MS: number = 2_000;

  /** The first wait before a provider's video job is asked about; it doubles up to MEDIA_POLL_MAX_MS. */
  @IsInt()
  @Min(10)
  @Max(600_000)
  MEDIA_POLL_FIRST_MS: number = 1_000;

  @IsInt()
  @Min(10)
  @Max(600_000)
  MEDIA_POLL_MAX_MS: number = 10_000;

  /** How often a safe step (a poll, a download, a call that never reached the provider) is tried again before the job fails. */
  @IsInt()
  @Min(0)
  @Max(100)
  MEDIA_JOB_MAX_RETRIES: number = 5;

  /** How often a wait for a generation reads its record (the job may run on another replica). */
  @IsInt()
  @Min(10)
  @Max(5_000)
  MEDIA_AWAIT_POLL_MS: number = 200;

  /** How long result urls stay valid from a read (never past the file's own expiry). */
  @IsInt()
  @Min(60_000)
  MEDIA_URL_TTL_MS: number = 3_600_000;

  /** How long an ended generation's outcome is left to the runner that ended it before another replica reports it. */
  @IsInt()
  @Min(1_000)
  MEDIA_SETTLE_GRACE_MS: number = 60_000;
}
