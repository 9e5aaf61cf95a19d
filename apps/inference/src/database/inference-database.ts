import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { EventOutboxEntity } from '../generations/event-outbox.entity';
import { RequestAttemptEntity } from '../generations/request-attempt.entity';
import { CreateInferenceTables1763900000000 } from './migrations/1763900000000-create-inference-tables';

export const INFERENCE_SCHEMA = 'inference';

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function inferenceDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: INFERENCE_SCHEMA,
    entities: [RequestAttemptEntity, EventOutboxEntity],
    migrations: [CreateInferenceTables1763900000000],
  };
}
