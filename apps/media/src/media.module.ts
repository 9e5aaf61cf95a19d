import { DynamicModule, Module } from '@nestjs/common';
import { paidGenerationProviders } from '@gw/paid-generation';
import { TransportModule, TransportOptions } from '@gw/platform';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { MEDIA_TABLES, mediaDatabase } from './database/media-database';
import { MediaGenerationHandler } from './generations/media-generation.handler';
import { MediaGenerationRepository } from './generations/media-generation.repository';
import { MediaGenerationService } from './generations/media-generation.service';
import { MediaEnv } from './media.env';

export { MediaEnv } from './media.env';
export const MEDIA_QUEUE = 'media';

export interface MediaOptions {
  env: MediaEnv;
  transport: TransportOptions;
}

@Module({})
export class MediaModule {
  static register(options: MediaOptions): DynamicModule {
    const database = mediaDatabase(options.env.DATABASE_URL);
    return {
      module: MediaModule,
      imports: [TransportModule.forRoot(options.transport), ServiceDatabaseModule.register(database)],
      controllers: [MediaGenerationHandler],
      providers: [
        MediaGenerationRepository,
        MediaGenerationService,
        // Reserve, record and relay for the paid media generations to come: their outbox lives in media's schema.
        ...paidGenerationProviders({
          tables: MEDIA_TABLES,
          outboxRelayIntervalMs: options.env.OUTBOX_RELAY_INTERVAL_MS,
          reservationRenewIntervalMs: options.env.RESERVATION_RENEW_INTERVAL_MS,
        }),
      ],
    };
  }
}
