import { DynamicModule, Module } from '@nestjs/common';
import { TransportModule, TransportOptions } from '@gw/platform';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { storageDatabase } from './database/storage-database';
import { StoredFileHandler } from './files/stored-file.handler';
import { StoredFileRepository } from './files/stored-file.repository';
import { STORAGE_QUOTA_BYTES, StoredFileService } from './files/stored-file.service';
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
        { provide: STORAGE_QUOTA_BYTES, useValue: options.env.STORAGE_QUOTA_BYTES },
      ],
    };
  }
}
