import { type DynamicModule } from '@nestjs/common';
import { type ServiceEnv } from '../env/base-env';
import { loadEnv } from '../env/load-env';
import { migrateServiceDatabase, type ServiceDatabaseOptions } from '../database/service-database';
import { createLogger } from '../logging/logger';
import { type BlobStore } from '../blobs/blob-store';
import { natsAuth, type TransportOptions } from '../transport/transport-options';
import { startHealthServer } from './health-server';
import { checkPostgres } from '../database/postgres-check';
import { checkNats } from './dependency-check';
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
 * first, so an unreachable one stops the process naming its address.
 */
export function runServiceMain<Env extends ServiceEnv>(options: ServiceMainOptions<Env>): void {
  runMain(options.name, async () => {
    const env = loadEnv(options.env, process.env);
    await checkPostgres(env.DATABASE_URL);
    if (process.argv.includes('--migrate')) return migrateServiceDatabase(options.database(env));
    await checkNats(env.NATS_URL, natsAuth(env));
    const logger = createLogger(options.name, env.LOG_FORMAT, env.LOG_LEVEL);
    let ready = false;
    if (env.HEALTH_PORT > 0) await startHealthServer(env.HEALTH_PORT, () => ready);
    const transport: TransportOptions = {
      kind: 'nats',
      servers: env.NATS_URL,
      auth: natsAuth(env),
      rpcTimeoutMs: env.RPC_TIMEOUT_MS,
      blobs: options.blobs?.(env),
    };
    const service = await startService(options.module({ env, transport }), transport, options.name, logger);
    service.enableShutdownHooks();
    ready = true;
    logger.log(`${options.name} serving on NATS ${env.NATS_URL} (queue ${options.name})`);
  });
}
