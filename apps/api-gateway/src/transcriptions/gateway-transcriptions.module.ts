import { Module } from '@nestjs/common';
import { BLOB_STORE, createBlobStore } from '@gw/platform/blobs';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';
import { AudioStagingService } from './audio-staging.service';
import { TranscriptionInputService } from './transcription-input.service';
import { TranscriptionsController } from './transcriptions.controller';

@Module({
  controllers: [TranscriptionsController],
  providers: [
    TranscriptionInputService,
    AudioStagingService,
    {
      provide: BLOB_STORE,
      inject: [API_GATEWAY_ENV],
      useFactory: (env: ApiGatewayEnv) => createBlobStore(env),
    },
  ],
})
export class GatewayTranscriptionsModule {}
