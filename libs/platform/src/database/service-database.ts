import { Logger } from '@nestjs/common';
import { DataSource, type DataSourceOptions, type EntitySchema, type MixedList } from 'typeorm';
import { PreparingClient } from './prepared-statements';

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own Postgres schema; it never touches another. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
  /**
   * pg's pipeline mode for the pool's connections: a query is sent without waiting for the answer
   * to the one before, which `runPipelined` uses to send several in one round trip (decision 197).
   */
  pipeline?: boolean;
}

export function serviceDataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    // pg_stat_activity names the service behind each connection.
    applicationName: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    // pg's pool builds its connections from `Client`: ours runs marked statements prepared (decision 194).
    extra: { max: options.poolSize ?? 10, Client: PreparingClient, pipeline: options.pipeline ?? false },
  };
}

/**
 * Creates the service's schema and applies its pending migrations. TypeORM keeps its migrations
 * table inside the schema, so the schema must exist before TypeORM looks for that table. An
 * advisory lock serialises replicas that start together.
 */
export async function migrateServiceDatabase(options: ServiceDatabaseOptions): Promise<void> {
  const logger = new Logger(`Migrations:${options.schema}`);
  const dataSource = new DataSource({ ...serviceDataSourceOptions(options), extra: { max: 1 } });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${options.schema}`]);
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    if (applied.length > 0) logger.log(`Applied ${applied.map((m) => m.name).join(', ')}`);
    await dataSource.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${options.schema}`]);
  } finally {
    await dataSource.destroy();
  }
}
