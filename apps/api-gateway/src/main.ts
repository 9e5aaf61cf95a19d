// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { checkNats, createLogger, listenHttp, loadEnv, runMain } from '@gw/platform';
import { ApiGatewayEnv } from './api-gateway.env';
import { createApiGatewayApp } from './api-gateway.module';

runMain('api-gateway', async () => {
  const env = loadEnv(ApiGatewayEnv, process.env);
  const logger = createLogger('api-gateway', env.LOG_FORMAT, env.LOG_LEVEL);
  await checkNats(env.NATS_URL);
  const app = await createApiGatewayApp(
    { env, transport: { kind: 'nats', servers: env.NATS_URL, rpcTimeoutMs: env.RPC_TIMEOUT_MS } },
    logger,
  );
  app.enableShutdownHooks();
  await listenHttp(app, env.PORT, env.HOST);
  logger.log(`Gateway listening on http://${env.HOST}:${env.PORT}/api (Swagger UI at /api/docs)`);
});
