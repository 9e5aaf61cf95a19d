import { Module } from '@nestjs/common';
import { BLOB_STORE, createBlobStore } from '@gw/platform/blobs';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';
import { ImagesController } from '../images/images.controller';
import { SpeechController } from '../speech/speech.controller';
import { GenerationWaiter } from './generation-waiter';
import { MediaController } from './media.controller';

/** Media generations, and the OpenAI-shaped images and speech APIs over them. */
@Module({
  controllers: [MediaController, ImagesController, SpeechController],
  providers: [
    GenerationWaiter,
    {
      provide: BLOB_STORE,
      inject: [API_GATEWAY_ENV],
      useFactory: (env: ApiGatewayEnv) => createBlobStore(env),
    },
  ],
})
export class GatewayMediaModule {}
