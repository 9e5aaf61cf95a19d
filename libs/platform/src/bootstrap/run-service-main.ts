import { type DynamicModule, type INestMicroservice, type LoggerService } from '@nestjs/common';
import { type NatsConnection } from '@nats-io/transport-node';
import { type Server } from 'node:http';
import { DataSource } from 'typeorm';
import { type ServiceEnv } from '../env/base-env';
import { loadEnv, StartupError } from '../env/load-env';
import { migrateServiceDatabase, type ServiceDatabaseOptions } from '../database/service-database';
import { postgresCheck } from '../database/postgres-check';
import { createLogger } from '../logging/logger';
import { flushTracing, startTracing, tracingConfig } from '../observability/tracing';
import { type BlobStore } from '../blobs/blob-store';
import { type BlobStoreSettings } from '../blobs/blob-store-env';
import { createBlobStore } from '../blobs/create-blob-store';
import { natsAuth, type TransportOptions } from '../transport/transport-options';
import { startHealthServer } from './health-server';
import { checkPostgres } from '../database/postgres-check';
import { checkNats } from './dependency-check';
import { blobStoreCheck, natsCheck } from './dependency-checks';
import { type DependencyCheck, Readiness } from './readiness';
import { onShutdownSignal } from './shutdown-signal';
import { startService } from './start-service';
import { runMain } from './startup-failure';

export interface ServiceMainOptions<Env extends ServiceEnv> {
  /** Also the NATS queue group, so replicas share the work. */
  name: string;
  env: new () => Env;
  database: (env: Env) => ServiceDatabaseOptions;
  module: (options: { env: Env; transport: TransportOptions }) => DynamicModule;
  /** The blob store of a service that takes requests larger than NATS carries (claim checks). */
  blobs?: (env: Env) => BlobStore;
}

/**
 * The entry point of every NATS service in the distributed mode: validate the environment (a bad
 * variable stops the process naming it), `--migrate` applies the migrations and exits, otherwise
 * serve on NATS with a health endpoint for the orchestrator. PostgreSQL and NATS are tried once
 * first, so an unreachable one stops the process naming its address. SIGTERM or SIGINT drains:
 * readiness fails, the handlers in flight finish (SHUTDOWN_GRACE_MS at most), NATS drains, then
 * the database closes.
 */
export function runServiceMain<Env extends ServiceEnv>(options: ServiceMainOptions<Env>): void {
  runMain(options.name, async () => {
    const env = loadEnv(options.env, process.env, { deployed: true });
    startTracing(tracingConfig(options.name, process.env));
    await checkPostgres(env.DATABASE_URL);
    if (process.argv.includes('--migrate')) return migrateServiceDatabase(options.database(env));
    await checkNats(env.NATS_URL, natsAuth(env));
    const logger = createLogger(options.name, env.LOG_FORMAT, env.LOG_LEVEL);
    const readiness = new Readiness();
    const health = env.HEALTH_PORT > 0 ? await startHealthServer(env.HEALTH_PORT, readiness) : null;
    const blobs = options.blobs?.(env);
    const transport: TransportOptions = {
      kind: 'nats',
      servers: env.NATS_URL,
      auth: natsAuth(env),
      rpcTimeoutMs: env.RPC_TIMEOUT_MS,
      blobs,
      drainTimeoutMs: env.SHUTDOWN_GRACE_MS,
    };
    const database = { poolMax: env.DB_POOL_MAX, migrateOnStart: env.DB_MIGRATE_ON_START === 'true' };
    const service = await startService(
      options.module({ env, transport }),
      transport,
      options.name,
      logger,
      database,
    );
    if (!database.migrateOnStart) await refusePendingMigrations(service, options.name);
    readiness.serve(serviceChecks(service, blobs ?? configuredBlobStore(env)));
    onShutdownSignal(env.SHUTDOWN_GRACE_MS, (signal) =>
      stopService(service, health, readiness, logger, signal, env.SHUTDOWN_GRACE_MS),
    );
    logger.log(`${options.name} serving on NATS ${env.NATS_URL} (queue ${options.name})`);
  });
}

/** What a service cannot serve without: its database, its NATS connection and its blob store if it has one. */
export function serviceChecks(service: INestMicroservice, blobs: BlobStore | null): DependencyCheck[] {
  return [
    postgresCheck(service.get(DataSource, { strict: false })),
    natsCheck(() => service.unwrap<NatsConnection>()),
    ...(blobs ? [blobStoreCheck(blobs)] : []),
  ];
}

/** Without migrating itself, a service still must not run against a schema older than its code. */
async function refusePendingMigrations(service: INestMicroservice, name: string): Promise<void> {
  const pending = await service
    .get(DataSource, { strict: false })
    .showMigrations()
    .catch((err: unknown) => (err as Error).message);
  if (pending === false) return;
  await service.close();
  const why = pending === true ? 'has migrations pending' : `cannot read its migrations (${pending})`;
  throw new StartupError(
    `${name} ${why} and DB_MIGRATE_ON_START is false: run the migrations first (the migrate Job, or node main.js --migrate with a DDL-capable DATABASE_URL)`,
  );
}

/** The blob store a service's environment configures (storage and media keep files), or none. */
function configuredBlobStore(env: ServiceEnv): BlobStore | null {
  return 'BLOB_STORE' in env ? createBlobStore(env as ServiceEnv & BlobStoreSettings) : null;
}

async function stopService(
  service: INestMicroservice,
  health: Server | null,
  readiness: Readiness,
  logger: LoggerService,
  signal: string,
  graceMs: number,
): Promise<void> {
  readiness.shutDown();
  logger.log(`${signal}: finishing the requests in flight (at most ${graceMs} ms), then stopping`);
  // The transport closes first (its handlers finish, NATS drains), then the providers' hooks run.
  await service.close();
  health?.close();
  await flushTracing();
  process.exit(0);
}
