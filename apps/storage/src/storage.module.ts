import { DynamicModule, Module } from '@nestjs/common';
import { TransportModule, TransportOptions } from '@gw/platform';
import { BLOB_STORE, createBlobStore } from '@gw/platform/blobs';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { storageDatabase } from './database/storage-database';
import { STORAGE_SETTINGS, storageSettings } from './files/storage-settings';
import { StoredFileHandler } from './files/stored-file.handler';
import { StoredFileRepository } from './files/stored-file.repository';
import { StoredFileService } from './files/stored-file.service';
import { StoredFileSweeper } from './files/stored-file.sweeper';
import { StorageEnv } from './storage.env';

export { StorageEnv } from './storage.env';
export const STORAGE_QUEUE = 'storage';

export interface StorageOptions {
  env: StorageEnv;
  transport: TransportOptions;
}

@Module({})
export class StorageModule {
  static register(options: StorageOptions): DynamicModule {
    const database = storageDatabase(options.env.DATABASE_URL);
    return {
      module: StorageModule,
      imports: [TransportModule.forRoot(options.transport), ServiceDatabaseModule.register(database)],
      controllers: [StoredFileHandler],
      providers: [
        StoredFileRepository,
        StoredFileService,
        StoredFileSweeper,
        { provide: STORAGE_SETTINGS, useValue: storageSettings(options.env) },
        { provide: BLOB_STORE, useFactory: () => createBlobStore(options.env) },
      ],
    };
  }
}
