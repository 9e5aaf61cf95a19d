// Decorator metadata (env schemas, DTOs, entities) needs the Reflect API before any class is defined.
import 'reflect-metadata';
import { runServiceMain } from '@gw/platform/database';
import { BILLING_QUEUE, BillingEnv, BillingModule } from './billing.module';
import { billingDatabase } from './database/billing-database';

runServiceMain({
  name: BILLING_QUEUE,
  env: BillingEnv,
  database: (env) => billingDatabase(env.DATABASE_URL),
  module: (options) => BillingModule.register(options),
});
