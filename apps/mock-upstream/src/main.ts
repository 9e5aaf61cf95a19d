// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { createLogger, listenHttp, loadEnv, runMain } from '@gw/platform';
import { createMockUpstreamApp, MockUpstreamEnv } from './mock-upstream.module';

runMain('mock-upstream', async () => {
  const env = loadEnv(MockUpstreamEnv, process.env);
  const logger = createLogger('mock-upstream', env.LOG_FORMAT, env.LOG_LEVEL);
  const app = await createMockUpstreamApp(logger, env);
  app.enableShutdownHooks();
  await listenHttp(app, env.PORT, env.HOST);
  logger.log(`mock-upstream listening on http://${env.HOST}:${env.PORT}`);
});
