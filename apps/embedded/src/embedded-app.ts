// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { type DynamicModule, type INestApplication, type INestMicroservice } from '@nestjs/common';
import { ApiGatewayEnv, createApiGatewayApp } from '@gw/app-api-gateway';
import { AUTH_QUEUE, AuthEnv, AuthModule } from '@gw/app-auth';
import { BILLING_QUEUE, BillingEnv, BillingModule } from '@gw/app-billing';
import { INFERENCE_QUEUE, InferenceEnv, InferenceModule } from '@gw/app-inference';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from '@gw/app-media';
import { createMockUpstreamApp, MockUpstreamEnv } from '@gw/app-mock-upstream';
import { STORAGE_QUEUE, StorageEnv, StorageModule } from '@gw/app-storage';
import {
  assertPortFree,
  flushTracing,
  InProcessBus,
  listenHttp,
  loadEnv,
  runMain,
  startService,
  startTracing,
  tracingConfig,
  type TransportOptions,
} from '@gw/platform';
import { createHmac } from 'node:crypto';
import { join, resolve } from 'node:path';
import { renderBanner } from './banner';
import { servedModels } from './catalogue-probe';
import { prepareDataDir } from './data-dir';
import { createEmbeddedLogger } from './embedded-logger';
import { createDemoAccount } from './demo-bootstrap';
import { loadDemoState, saveDemoState } from './demo-state';
import { publicHost } from './public-host';
import { EmbeddedEnv } from './embedded.env';
import { startEmbeddedPostgres } from './embedded-postgres';
import { embeddedReadinessChecks } from './embedded-readiness';
import { whenLauncherGone } from './heap-settings';

/**
 * One process, no external servers (DESIGN.md §3): embedded PostgreSQL, the in-process bus in place
 * of NATS, mock-upstream, every service and the gateway, then the demo account.
 */
async function main(): Promise<void> {
  const env = loadEnv(EmbeddedEnv, process.env);
  startTracing(tracingConfig('model-gateway', process.env));
  const logger = createEmbeddedLogger('embedded', env.LOG_LEVEL);
  const dataDir = resolve(env.DATA_DIR);
  prepareDataDir(dataDir);
  // Before PostgreSQL's seconds of start-up, so a busy PORT is reported at once.
  await assertPortFree(env.PORT, env.HOST);
  const state = loadDemoState(dataDir, env.ADMIN_TOKEN);

  logger.log(`Starting PostgreSQL (DATA_DIR ${dataDir})`);
  const postgres = await startEmbeddedPostgres({
    dataDir,
    port: env.EMBEDDED_PG_PORT,
    httpPort: env.PORT,
    log: (message) => logger.log(message),
    error: (message) => {
      logger.error(`${message}: stopping`);
      process.exit(1);
    },
  });
  // MOCK_MEDIA_JOB_MS (how long a video job takes) applies here as to the mock-upstream process.
  const mockUpstream = await createMockUpstreamApp(
    createEmbeddedLogger('mock-upstream', 'warn'),
    loadEnv(MockUpstreamEnv, { MOCK_MEDIA_JOB_MS: process.env['MOCK_MEDIA_JOB_MS'] }),
  );
  await mockUpstream.listen(0, '127.0.0.1');
  const mockUpstreamUrl = (await mockUpstream.getUrl()).replace('[::1]', '127.0.0.1');

  const transport: TransportOptions = { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 30_000 };
  const urlHost = publicHost(env.HOST);
  const shared = {
    DATABASE_URL: postgres.url,
    // Files live under DATA_DIR; their urls are the gateway's own signed route (DESIGN.md §3).
    BLOB_STORE: 'local',
    BLOB_DIR: join(dataDir, 'files'),
    BLOB_PUBLIC_URL: `http://${urlHost}:${env.PORT}/api`,
    BLOB_URL_SECRET: createHmac('sha256', state.jwtSecret).update('file urls').digest('base64url'),
    JWT_SECRET: state.jwtSecret,
    ADMIN_TOKEN: state.adminToken,
    MOCK_UPSTREAM_URL: mockUpstreamUrl,
    CATALOGUE_FILE: env.CATALOGUE_FILE,
    SYNC_WAIT_MS: String(env.SYNC_WAIT_MS),
    LOG_FORMAT: 'pretty',
    LOG_LEVEL: env.LOG_LEVEL,
  };
  // The operator's own settings of the services (FIRST_TOKEN_TIMEOUT_MS, TRANSCRIPTION_URL_ALLOW_HOSTS, ...)
  // apply here as in the distributed mode; what the embedded mode wires itself always wins.
  const serviceEnv = { ...process.env, ...shared };
  const serviceLogger = (name: string) => createEmbeddedLogger(name, env.LOG_LEVEL);
  const host = (module: DynamicModule, queue: string): Promise<INestMicroservice> =>
    startService(module, transport, queue, serviceLogger(queue));
  const auth = await host(AuthModule.register({ env: loadEnv(AuthEnv, serviceEnv), transport }), AUTH_QUEUE);
  const billing = await host(
    BillingModule.register({ env: loadEnv(BillingEnv, serviceEnv), transport }),
    BILLING_QUEUE,
  );
  const services: INestMicroservice[] = [
    auth,
    billing,
    await host(
      InferenceModule.register({ env: loadEnv(InferenceEnv, serviceEnv), transport, secrets: process.env }),
      INFERENCE_QUEUE,
    ),
    await host(StorageModule.register({ env: loadEnv(StorageEnv, serviceEnv), transport }), STORAGE_QUEUE),
    // After storage, so it stops first: its jobs in flight still store their results on the way down.
    await host(
      MediaModule.register({ env: loadEnv(MediaEnv, serviceEnv), transport, secrets: process.env }),
      MEDIA_QUEUE,
    ),
  ];

  const gatewayEnv = loadEnv(ApiGatewayEnv, { ...serviceEnv, PORT: String(env.PORT), HOST: env.HOST });
  const gateway: INestApplication = await createApiGatewayApp(
    // The gateway's readiness is the process's: it answers for the services' database too.
    { env: gatewayEnv, transport, readinessChecks: embeddedReadinessChecks(billing) },
    serviceLogger('api-gateway'),
  );
  await listenHttp(gateway, env.PORT, env.HOST);
  const port = (gateway.getHttpServer() as { address(): { port: number } }).address().port;
  const baseUrl = `http://${urlHost}:${port}/api`;

  if (!state.account) {
    state.account = await createDemoAccount(`http://127.0.0.1:${port}/api`, state.adminToken);
    saveDemoState(dataDir, { ...loadDemoState(dataDir, undefined), account: state.account });
  }
  const models = await servedModels(`http://127.0.0.1:${port}/api`);
  process.stdout.write(renderBanner(baseUrl, state, models) + '\n');

  const shutdown = async (signal: string): Promise<void> => {
    logger.log(`${signal}: shutting down`);
    await gateway.close();
    for (const service of services.reverse()) await service.close();
    await mockUpstream.close();
    await postgres.stop();
    await flushTracing();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  whenLauncherGone(() => void shutdown('the launcher is gone'));
}

export function runEmbedded(): void {
  runMain('embedded', main);
}
