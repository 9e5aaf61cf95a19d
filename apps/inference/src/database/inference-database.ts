import { indexPublishedOutboxEvents, paidGenerationTables } from '@gw/paid-generation';
import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { CreateInferenceTables1763900000000 } from './migrations/1763900000000-create-inference-tables';

export const INFERENCE_SCHEMA = 'inference';

/** The request attempts and the event outbox of the paid-generation pipeline, in this service's schema. */
export const INFERENCE_TABLES = paidGenerationTables(INFERENCE_SCHEMA);

const IndexPublishedOutboxEvents1766000000000 = indexPublishedOutboxEvents(
  INFERENCE_SCHEMA,
  'IndexPublishedOutboxEvents1766000000000',
);

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function inferenceDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: INFERENCE_SCHEMA,
    // The outbox's marks of published events take one round trip (decision 200).
    pipeline: true,
    entities: [INFERENCE_TABLES.RequestAttempt, INFERENCE_TABLES.EventOutbox],
    migrations: [CreateInferenceTables1763900000000, IndexPublishedOutboxEvents1766000000000],
  };
}
