// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { runServiceMain } from '@gw/platform/database';
import { mediaDatabase } from './database/media-database';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from './media.module';

runServiceMain({
  name: MEDIA_QUEUE,
  env: MediaEnv,
  database: (env) => mediaDatabase(env.DATABASE_URL),
  module: (options) => MediaModule.register(options),
});
