import { INestApplication, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { AlphaController } from './alpha/alpha.controller';
import { BetaController } from './beta/beta.controller';
import { BrokenController } from './broken/broken.controller';
import { CallLog, CallsController } from './calls/call-log';
import { MockEmbeddingsController } from './embeddings/embeddings.controller';
import { HealthController } from './health/health.controller';
import { MockMediaModule } from './media/mock-media.module';
import type { MockMediaSettings } from './media/mock-media-settings';
import { MockUpstreamEnv } from './mock-upstream.env';
import { MockTranscriptionsController } from './transcriptions/mock-transcriptions.controller';

export { MockUpstreamEnv };

/** A fake provider for the demo, tests and benchmarks: `Mock Alpha` (OpenAI wire), `Mock Beta` (Anthropic wire), `Mock Broken`. */
@Module({
  controllers: [
    HealthController,
    AlphaController,
    BetaController,
    BrokenController,
    MockEmbeddingsController,
    MockTranscriptionsController,
    CallsController,
  ],
  providers: [CallLog],
})
export class MockUpstreamModule {}

/**
 * Builds the app without listening, so the embedded mode and tests can pick the port; the media
 * settings default to the environment's defaults.
 */
export async function createMockUpstreamApp(
  logger: LoggerService,
  media: MockMediaSettings = new MockUpstreamEnv(),
): Promise<INestApplication> {
  const withMedia = { module: MockUpstreamModule, imports: [MockMediaModule.register(media)] };
  const app = await NestFactory.create<NestExpressApplication>(withMedia, {
    logger,
    bodyParser: false,
  });
  app.useBodyParser('json', { limit: '32mb' });
  const calls = app.get(CallLog);
  app.use((req: Request, res: Response, next: NextFunction) =>
    req.path === '/calls' ? next() : calls.middleware(req, res, next),
  );
  return app;
}
