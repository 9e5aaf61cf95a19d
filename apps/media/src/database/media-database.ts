import { indexPublishedOutboxEvents, paidGenerationTables } from '@gw/paid-generation';
import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { MediaGenerationEntity } from '../generations/media-generation.entity';
import { CreateMediaGenerations1763830000000 } from './migrations/1763830000000-create-media-generations';
import { CreateMediaPaidGenerationTables1764000000000 } from './migrations/1764000000000-create-media-paid-generation-tables';
import { MediaGenerationJobs1764100000000 } from './migrations/1764100000000-media-generation-jobs';

export const MEDIA_SCHEMA = 'media';

/** The request attempts and the event outbox of the paid-generation pipeline, in this service's schema. */
export const MEDIA_TABLES = paidGenerationTables(MEDIA_SCHEMA);

const IndexPublishedMediaOutboxEvents1766000000000 = indexPublishedOutboxEvents(
  MEDIA_SCHEMA,
  'IndexPublishedMediaOutboxEvents1766000000000',
);

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function mediaDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: MEDIA_SCHEMA,
    // The outbox's marks of published events take one round trip (decision 200).
    pipeline: true,
    entities: [MediaGenerationEntity, MEDIA_TABLES.RequestAttempt, MEDIA_TABLES.EventOutbox],
    migrations: [
      CreateMediaGenerations1763830000000,
      CreateMediaPaidGenerationTables1764000000000,
      MediaGenerationJobs1764100000000,
      IndexPublishedMediaOutboxEvents1766000000000,
    ],
  };
}
