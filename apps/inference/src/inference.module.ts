import { DynamicModule, Module } from '@nestjs/common';
import { AppMetrics, TransportModule, TransportOptions } from '@gw/platform';
import { BLOB_STORE, createBlobStore, TransientBlobSweeper } from '@gw/platform/blobs';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import { paidGenerationProviders } from '@gw/paid-generation';
import { ModelsHandler } from './catalogue/models.handler';
import { ChatCompletionHandler } from './chat/chat-completion.handler';
import { CHAT_SETTINGS, ChatCompletionService } from './chat/chat-completion.service';
import { GenerationCancelHandler } from './chat/generation-cancel.handler';
import { GenerationCancellations } from './chat/generation-cancellations';
import { INFERENCE_TABLES, inferenceDatabase } from './database/inference-database';
import { FormatsHandler } from './formats/formats.handler';
import { EmbeddingsHandler } from './embeddings/embeddings.handler';
import { EmbeddingsService } from './embeddings/embeddings.service';
import { InferenceEnv } from './inference.env';
import { upstreamProviders } from './providers/upstream.providers';
import { TranscriptionHandler } from './transcriptions/transcription.handler';
import { TranscriptionService } from './transcriptions/transcription.service';

export { InferenceEnv, WithCatalogueFile } from './inference.env';
export { CatalogueError } from '@gw/catalogue';
export const INFERENCE_QUEUE = 'inference';

export interface InferenceOptions {
  env: InferenceEnv;
  transport: TransportOptions;
  /**
   * Where the catalogue's `apiKeyEnv` names and `${VAR}` templates are looked up, besides the
   * env itself (distributed mode: process.env). Provider keys are per deployment, so they are not
   * fields of InferenceEnv.
   */
  secrets?: Record<string, string | undefined>;
}

@Module({})
export class InferenceModule {
  /** Loads and validates the catalogue at once: an invalid file stops the service with a CatalogueError naming the problem. */
  static register(options: InferenceOptions): DynamicModule {
    const { env } = options;
    const database = inferenceDatabase(env.DATABASE_URL);
    const variables: Record<string, string | undefined> = {
      ...options.secrets,
      MOCK_UPSTREAM_URL: env.MOCK_UPSTREAM_URL,
      MOCK_UPSTREAM_API_KEY: options.secrets?.['MOCK_UPSTREAM_API_KEY'] ?? env.MOCK_UPSTREAM_API_KEY,
    };
    const catalogue = new ModelCatalogue(loadCatalogue(env.CATALOGUE_FILE, variables));
    const blobs = createBlobStore(env);
    return {
      module: InferenceModule,
      imports: [TransportModule.forRoot(options.transport), ServiceDatabaseModule.register(database)],
      controllers: [
        ModelsHandler,
        ChatCompletionHandler,
        GenerationCancelHandler,
        FormatsHandler,
        EmbeddingsHandler,
        TranscriptionHandler,
      ],
      providers: [
        { provide: ModelCatalogue, useValue: catalogue },
        { provide: BLOB_STORE, useValue: blobs },
        {
          provide: TransientBlobSweeper,
          useFactory: (metrics?: AppMetrics) =>
            new TransientBlobSweeper(blobs, env.TRANSIENT_BLOB_MAX_AGE_MS, metrics),
          inject: [{ token: AppMetrics, optional: true }],
        },
        ...upstreamProviders(env.UPSTREAM_TIMEOUT_MS, env.UPSTREAM_MAX_CONNECTIONS),
        {
          provide: CHAT_SETTINGS,
          useValue: {
            minCompletionTokens: env.MIN_COMPLETION_TOKENS,
            firstHoldCompletionTokens: env.FIRST_HOLD_COMPLETION_TOKENS,
            firstTokenTimeoutMs: env.FIRST_TOKEN_TIMEOUT_MS,
          },
        },
        { provide: GenerationCancellations, useValue: new GenerationCancellations() },
        ...paidGenerationProviders({
          tables: INFERENCE_TABLES,
          outboxRelayIntervalMs: env.OUTBOX_RELAY_INTERVAL_MS,
          outboxRetentionMs: env.OUTBOX_RETENTION_HOURS * 3_600_000,
          reservationRenewIntervalMs: env.RESERVATION_RENEW_INTERVAL_MS,
        }),
        ChatCompletionService,
        TranscriptionService,
        EmbeddingsService,
      ],
    };
  }
}
