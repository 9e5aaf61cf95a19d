import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { MediaGenerationEntity } from '../generations/media-generation.entity';
import { CreateMediaGenerations1763830000000 } from './migrations/1763830000000-create-media-generations';

export const MEDIA_SCHEMA = 'media';

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function mediaDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: MEDIA_SCHEMA,
    entities: [MediaGenerationEntity],
    migrations: [CreateMediaGenerations1763830000000],
  };
}
