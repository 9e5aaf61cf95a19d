// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { createBlobStore } from '@gw/platform/blobs';
import { runServiceMain } from '@gw/platform/database';
import { mediaDatabase } from './database/media-database';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from './media.module';

runServiceMain({
  name: MEDIA_QUEUE,
  env: MediaEnv,
  database: (env) => mediaDatabase(env.DATABASE_URL),
  // Replies above NATS's max_payload (ten base64 images) cross by claim check through the same store.
  blobs: (env) => createBlobStore(env),
  // Provider API keys named by the catalogue (apiKeyEnv) are read from the process environment.
  module: (options) => MediaModule.register({ ...options, secrets: process.env }),
});
