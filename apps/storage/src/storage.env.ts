import { IsInt, Min } from 'class-validator';
import { ServiceEnv } from '@gw/platform';
import { WithBlobStore } from '@gw/platform/blobs';

export class StorageEnv extends WithBlobStore(ServiceEnv) {
  /** The volume each organization may use; `totalBytes` of the statistics. */
  @IsInt()
  @Min(1)
  STORAGE_QUOTA_BYTES: number = 10 * 1024 ** 3;

  /** The largest single file, uploaded or generated. */
  @IsInt()
  @Min(1)
  STORAGE_MAX_FILE_BYTES: number = 100 * 1024 * 1024;

  /** How long a TEMP_UPLOAD file lives. */
  @IsInt()
  @Min(1_000)
  STORAGE_TEMP_UPLOAD_TTL_MS: number = 24 * 3600_000;

  /** How long a TEMP_GENERATION file lives. */
  @IsInt()
  @Min(1_000)
  STORAGE_TEMP_GENERATION_TTL_MS: number = 7 * 24 * 3600_000;

  /** How long a file's url works at most (a temporary file's url ends at its expiry, if sooner). */
  @IsInt()
  @Min(1_000)
  STORAGE_URL_TTL_MS: number = 3600_000;

  /** An upload not completed within this is taken as abandoned and its object and record removed. */
  @IsInt()
  @Min(1_000)
  STORAGE_PENDING_UPLOAD_TTL_MS: number = 3600_000;

  /** How often the sweeper removes expired files, abandoned uploads and unfinished deletions. */
  @IsInt()
  @Min(100)
  STORAGE_SWEEP_INTERVAL_MS: number = 60_000;
}
