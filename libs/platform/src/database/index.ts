// The database glue of the services, apart from the main entry point so that the gateway, which
// holds no database, never loads TypeORM or pg. A service's main belongs here: `--migrate` runs
// its migrations.
export * from './database-runtime';
export * from './service-database';
export * from './service-database.module';
export * from './postgres-check';
export * from './prepared-statements';
export * from './pipelined-statements';
export * from '../bootstrap/run-service-main';
