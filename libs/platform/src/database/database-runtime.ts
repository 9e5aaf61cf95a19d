import { type DynamicModule, Global, Module } from '@nestjs/common';

/** How a deployment runs a service's database, as its environment says (ServiceEnv). */
export interface DatabaseRuntime {
  /** Connections the service's pool may open (DB_POOL_MAX). */
  poolMax: number;
  /**
   * Whether the service applies its migrations at start (DB_MIGRATE_ON_START); off where a Job
   * migrates with a DDL-capable role and the service's own role may only read and write rows.
   */
  migrateOnStart: boolean;
}

export const DATABASE_RUNTIME = Symbol('DATABASE_RUNTIME');

/** What a service gets when nothing says otherwise (the embedded mode, tests). */
export const DEFAULT_DATABASE_RUNTIME: DatabaseRuntime = { poolMax: 10, migrateOnStart: true };

/** Hands the runtime settings to ServiceDatabaseModule, which each service's own module imports. */
@Global()
@Module({})
export class DatabaseRuntimeModule {
  static forRoot(runtime: DatabaseRuntime): DynamicModule {
    return {
      module: DatabaseRuntimeModule,
      providers: [{ provide: DATABASE_RUNTIME, useValue: runtime }],
      exports: [DATABASE_RUNTIME],
    };
  }
}
