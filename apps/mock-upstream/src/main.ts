// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { createLogger, loadEnv, StartupError } from '@gw/platform';
import { createMockUpstreamApp, MockUpstreamEnv } from './mock-upstream.module';

async function main(): Promise<void> {
  const env = loadEnv(MockUpstreamEnv, process.env);
  const logger = createLogger('mock-upstream', env.LOG_FORMAT, env.LOG_LEVEL);
  const app = await createMockUpstreamApp(logger);
  app.enableShutdownHooks();
  await app.listen(env.PORT, env.HOST);
  logger.log(`mock-upstream listening on http://${env.HOST}:${env.PORT}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof StartupError ? err.message : err);
  process.exit(1);
});
