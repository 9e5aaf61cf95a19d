// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { runServiceMain } from '@gw/platform/database';
import { AUTH_QUEUE, AuthEnv, authDatabase, AuthModule } from './auth.module';

runServiceMain({
  name: AUTH_QUEUE,
  env: AuthEnv,
  database: (env) => authDatabase(env.DATABASE_URL),
  module: (options) => AuthModule.register(options),
});
