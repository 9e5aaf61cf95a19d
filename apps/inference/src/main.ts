// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { createBlobStore } from '@gw/platform/blobs';
import { runServiceMain } from '@gw/platform/database';
import { inferenceDatabase } from './database/inference-database';
import { INFERENCE_QUEUE, InferenceEnv, InferenceModule } from './inference.module';

runServiceMain({
  name: INFERENCE_QUEUE,
  env: InferenceEnv,
  database: (env) => inferenceDatabase(env.DATABASE_URL),
  // Chat prompts and embedding inputs above NATS's max_payload arrive by claim check.
  blobs: (env) => createBlobStore(env),
  // Provider API keys named by the catalogue (apiKeyEnv) are read from the process environment.
  module: (options) => InferenceModule.register({ ...options, secrets: process.env }),
});
