import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_RUNTIME, type DatabaseRuntime, DEFAULT_DATABASE_RUNTIME } from './database-runtime';
import { migrateServiceDatabase, serviceDataSourceOptions, ServiceDatabaseOptions } from './service-database';

/**
 * A service's database: its own schema migrated before the DataSource opens (unless a migrations
 * Job does it, DatabaseRuntime), a pool of the configured size, and repositories for its entities.
 * Every service imports this instead of wiring TypeORM itself.
 */
@Module({})
export class ServiceDatabaseModule {
  static register(database: ServiceDatabaseOptions): DynamicModule {
    const listed = Array.isArray(database.entities) ? database.entities : Object.values(database.entities);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    const entities = listed as Function[];
    return {
      module: ServiceDatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [{ token: DATABASE_RUNTIME, optional: true }],
          useFactory: async (runtime: DatabaseRuntime | undefined) => {
            const { poolMax, migrateOnStart } = runtime ?? DEFAULT_DATABASE_RUNTIME;
            if (migrateOnStart) await migrateServiceDatabase(database);
            return serviceDataSourceOptions({ ...database, poolSize: database.poolSize ?? poolMax });
          },
        }),
        TypeOrmModule.forFeature(entities),
      ],
      exports: [TypeOrmModule],
    };
  }
}
