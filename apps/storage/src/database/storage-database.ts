import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { StoredFileEntity } from '../files/stored-file.entity';
import { CreateStorageFiles1763830100000 } from './migrations/1763830100000-create-storage-files';
import { TrackFileLifecycle1764000000000 } from './migrations/1764000000000-track-file-lifecycle';

export const STORAGE_SCHEMA = 'storage';

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function storageDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: STORAGE_SCHEMA,
    entities: [StoredFileEntity],
    migrations: [CreateStorageFiles1763830100000, TrackFileLifecycle1764000000000],
  };
}
