// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import {
  checkNats,
  createLogger,
  flushTracing,
  HttpDrain,
  listenHttp,
  loadEnv,
  natsAuth,
  onShutdownSignal,
  Readiness,
  runMain,
  startTracing,
  stopHttpApp,
  tracingConfig,
} from '@gw/platform';
import { createBlobStore } from '@gw/platform/blobs';
import { ApiGatewayEnv } from './api-gateway.env';
import { createApiGatewayApp } from './api-gateway.module';

runMain('api-gateway', async () => {
  const env = loadEnv(ApiGatewayEnv, process.env, { deployed: true });
  startTracing(tracingConfig('api-gateway', process.env));
  const logger = createLogger('api-gateway', env.LOG_FORMAT, env.LOG_LEVEL);
  await checkNats(env.NATS_URL, natsAuth(env));
  const app = await createApiGatewayApp(
    {
      env,
      // Request payloads above NATS's max_payload go by claim check through the blob store.
      transport: {
        kind: 'nats',
        servers: env.NATS_URL,
        auth: natsAuth(env),
        rpcTimeoutMs: env.RPC_TIMEOUT_MS,
        blobs: createBlobStore(env),
        drainTimeoutMs: env.SHUTDOWN_GRACE_MS,
      },
    },
    logger,
  );
  // SIGTERM: readiness fails, no new connection, requests and streams in flight finish, NATS drains.
  const drain = HttpDrain.install(app);
  onShutdownSignal(env.SHUTDOWN_GRACE_MS, async (signal) => {
    logger.log(`${signal} received`);
    await stopHttpApp(app, drain, app.get(Readiness), logger, env.SHUTDOWN_GRACE_MS);
    await flushTracing();
    process.exit(0);
  });
  await listenHttp(app, env.PORT, env.HOST);
  logger.log(`Gateway listening on http://${env.HOST}:${env.PORT}/api (Swagger UI at /api/docs)`);
});
