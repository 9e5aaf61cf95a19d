import { DynamicModule, Module } from '@nestjs/common';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import { paidGenerationProviders } from '@gw/paid-generation';
import { TransportModule, TransportOptions } from '@gw/platform';
import { BLOB_STORE, type BlobStore, createBlobStore, GeneratedFileWriter } from '@gw/platform/blobs';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { MEDIA_TABLES, mediaDatabase } from './database/media-database';
import { GenerationEndings } from './generations/generation-endings';
import { MediaGenerationHandler } from './generations/media-generation.handler';
import { MediaGenerationMetrics } from './generations/media-generation-metrics';
import { MediaGenerationRepository } from './generations/media-generation.repository';
import { MEDIA_GENERATION_SETTINGS, MediaGenerationService } from './generations/media-generation.service';
import { MEDIA_AWAIT_POLL, MediaGenerationTracker } from './generations/media-generation-tracker.service';
import { MEDIA_JOB_RUNNER_SETTINGS, MediaJobRunner } from './jobs/media-job-runner.service';
import { MEDIA_JOB_STEPS, MediaJobExecutor } from './jobs/media-job.executor';
import { MediaEnv } from './media.env';
import { MEDIA_HOLD_SETTINGS, MediaHolds } from './money/media-holds.service';
import { MediaProviderClient } from './provider/media-provider.client';
import { MEDIA_URL_TTL, MediaResults } from './results/media-results.service';

export { MediaEnv } from './media.env';
export const MEDIA_QUEUE = 'media';

export interface MediaOptions {
  env: MediaEnv;
  transport: TransportOptions;
  /** Where the catalogue's `apiKeyEnv` names are looked up besides the env (distributed mode: process.env). */
  secrets?: Record<string, string | undefined>;
  /** The blob store, when the caller made it already (the transport's claim checks use the same). */
  blobs?: BlobStore;
}

@Module({})
export class MediaModule {
  static register(options: MediaOptions): DynamicModule {
    const { env } = options;
    const database = mediaDatabase(env.DATABASE_URL);
    const catalogue = new ModelCatalogue(
      loadCatalogue(env.CATALOGUE_FILE, {
        ...options.secrets,
        MOCK_UPSTREAM_URL: env.MOCK_UPSTREAM_URL,
        MOCK_UPSTREAM_API_KEY: options.secrets?.['MOCK_UPSTREAM_API_KEY'] ?? env.MOCK_UPSTREAM_API_KEY,
      }),
    );
    return {
      module: MediaModule,
      imports: [TransportModule.forRoot(options.transport), ServiceDatabaseModule.register(database)],
      controllers: [MediaGenerationHandler],
      providers: [
        { provide: ModelCatalogue, useValue: catalogue },
        { provide: BLOB_STORE, useValue: options.blobs ?? createBlobStore(env) },
        { provide: MediaProviderClient, useFactory: () => new MediaProviderClient(env.UPSTREAM_TIMEOUT_MS) },
        { provide: MEDIA_URL_TTL, useValue: env.MEDIA_URL_TTL_MS },
        {
          provide: MEDIA_JOB_STEPS,
          useValue: {
            poll: { firstDelayMs: env.MEDIA_POLL_FIRST_MS, maxDelayMs: env.MEDIA_POLL_MAX_MS },
            maxRetries: env.MEDIA_JOB_MAX_RETRIES,
          },
        },
        {
          provide: MEDIA_JOB_RUNNER_SETTINGS,
          useValue: {
            concurrency: env.MEDIA_JOB_CONCURRENCY,
            leaseMs: env.MEDIA_JOB_LEASE_MS,
            idlePollMs: env.MEDIA_IDLE_POLL_MS,
          },
        },
        {
          provide: MEDIA_HOLD_SETTINGS,
          useValue: {
            keepIntervalMs: env.RESERVATION_RENEW_INTERVAL_MS,
            settleGraceMs: env.MEDIA_SETTLE_GRACE_MS,
          },
        },
        {
          provide: MEDIA_GENERATION_SETTINGS,
          useValue: { jobDeadlineMs: env.MEDIA_JOB_DEADLINE_MS },
        },
        GeneratedFileWriter,
        GenerationEndings,
        MediaGenerationRepository,
        MediaGenerationMetrics,
        MediaResults,
        MediaHolds,
        MediaJobExecutor,
        MediaJobRunner,
        MediaGenerationService,
        { provide: MEDIA_AWAIT_POLL, useValue: env.MEDIA_AWAIT_POLL_MS },
        MediaGenerationTracker,
        ...paidGenerationProviders({
          tables: MEDIA_TABLES,
          outboxRelayIntervalMs: env.OUTBOX_RELAY_INTERVAL_MS,
          outboxRetentionMs: env.OUTBOX_RETENTION_HOURS * 3_600_000,
          reservationRenewIntervalMs: env.RESERVATION_RENEW_INTERVAL_MS,
        }),
      ],
    };
  }
}
