import { INestApplication, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AlphaController } from './alpha/alpha.controller';
import { BetaController } from './beta/beta.controller';
import { BrokenController } from './broken/broken.controller';
import { MockEmbeddingsController } from './embeddings/embeddings.controller';
import { HealthController } from './health/health.controller';
import { MockTranscriptionsController } from './transcriptions/mock-transcriptions.controller';

export { MockUpstreamEnv } from './mock-upstream.env';

/** A fake provider for the demo, tests and benchmarks: `Mock Alpha` (OpenAI wire), `Mock Beta` (Anthropic wire), `Mock Broken`. */
@Module({
  controllers: [
    HealthController,
    AlphaController,
    BetaController,
    BrokenController,
    MockEmbeddingsController,
    MockTranscriptionsController,
  ],
})
export class MockUpstreamModule {}

/** Builds the app without listening, so the embedded mode and tests can pick the port. */
export async function createMockUpstreamApp(logger: LoggerService): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(MockUpstreamModule, {
    logger,
    bodyParser: false,
  });
  app.useBodyParser('json', { limit: '32mb' });
  return app;
}
