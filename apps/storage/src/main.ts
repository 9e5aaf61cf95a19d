// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { runServiceMain } from '@gw/platform/database';
import { storageDatabase } from './database/storage-database';
import { STORAGE_QUEUE, StorageEnv, StorageModule } from './storage.module';

runServiceMain({
  name: STORAGE_QUEUE,
  env: StorageEnv,
  database: (env) => storageDatabase(env.DATABASE_URL),
  module: (options) => StorageModule.register(options),
});
