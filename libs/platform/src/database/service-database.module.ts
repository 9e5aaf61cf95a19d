import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { migrateServiceDatabase, serviceDataSourceOptions, ServiceDatabaseOptions } from './service-database';

/**
 * A service's database: its own schema migrated before the DataSource opens, and repositories
 * for its entities. Every service imports this instead of wiring TypeORM itself.
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
          useFactory: async () => {
            await migrateServiceDatabase(database);
            return serviceDataSourceOptions(database);
          },
        }),
        TypeOrmModule.forFeature(entities),
      ],
      exports: [TypeOrmModule],
    };
  }
}
