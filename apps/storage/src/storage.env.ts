import { IsInt, Min } from 'class-validator';
import { ServiceEnv } from '@gw/platform';

export class StorageEnv extends ServiceEnv {
  /** The volume each organization may use; `totalBytes` of the statistics. */
  @IsInt()
  @Min(1)
  STORAGE_QUOTA_BYTES: number = 10 * 1024 ** 3;
}
