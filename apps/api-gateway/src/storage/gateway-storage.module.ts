import { Module } from '@nestjs/common';
import { BLOB_STORE, createBlobStore } from '@gw/platform/blobs';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';
import { StorageController } from './storage.controller';
import { StoredFileContentController } from './stored-file-content.controller';
import { StoredFileUploadService } from './stored-file-upload.service';

@Module({
  controllers: [StorageController, StoredFileContentController],
  providers: [
    StoredFileUploadService,
    {
      provide: BLOB_STORE,
      inject: [API_GATEWAY_ENV],
      useFactory: (env: ApiGatewayEnv) => createBlobStore(env),
    },
  ],
})
export class GatewayStorageModule {}
