import { Test } from '@nestjs/testing';
import { createTestDatabase, type TestDatabase } from '@gw/testing';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { DatabaseRuntimeModule, type DatabaseRuntime } from './database-runtime';
import { migrateServiceDatabase, type ServiceDatabaseOptions } from './service-database';
import { ServiceDatabaseModule } from './service-database.module';

class CreateNotes1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE "runtime_test"."notes" ("id" serial PRIMARY KEY, "text" text NOT NULL)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "runtime_test"."notes"');
  }
}

describe('a service database run as the deployment says', () => {
  let db: TestDatabase;
  const options = (url: string): ServiceDatabaseOptions => ({
    url,
    schema: 'runtime_test',
    entities: [],
    migrations: [CreateNotes1700000000000],
  });

  beforeEach(async () => {
    db = await createTestDatabase('database_runtime');
  });
  afterEach(() => db.drop());

  async function open(url: string, runtime?: DatabaseRuntime): Promise<DataSource> {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ...(runtime ? [DatabaseRuntimeModule.forRoot(runtime)] : []),
        ServiceDatabaseModule.register(options(url)),
      ],
    }).compile();
    await moduleRef.init();
    const dataSource = moduleRef.get(DataSource);
    afterEachClose.push(() => moduleRef.close());
    return dataSource;
  }
  const afterEachClose: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of afterEachClose.splice(0)) await close();
  });

  it('migrates at start with a pool of 10 unless told otherwise', async () => {
    const dataSource = await open(db.url);
    await expect(dataSource.showMigrations()).resolves.toBe(false);
    expect(
      (dataSource.driver as unknown as { master: { options: { max: number } } }).master.options.max,
    ).toBe(10);
  });

  it('leaves the migrations to a Job, sizes the pool from DB_POOL_MAX, and sees what is pending', async () => {
    // The schema as an older release's migrations Job left it: nothing of this release applied.
    await migrateServiceDatabase({ ...options(db.url), migrations: [] });
    const dataSource = await open(db.url, { poolMax: 3, migrateOnStart: false });
    expect(
      (dataSource.driver as unknown as { master: { options: { max: number } } }).master.options.max,
    ).toBe(3);
    await expect(dataSource.showMigrations()).resolves.toBe(true);
  });

  it('serves with a role that may only read and write rows once the owner has migrated', async () => {
    const role = `t_dml_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE "${role}" LOGIN`);
      await migrateServiceDatabase(options(db.url));
      await admin.query(`GRANT USAGE ON SCHEMA "runtime_test" TO "${role}"`);
      await admin.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "runtime_test" TO "${role}"`,
      );
      await admin.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA "runtime_test" TO "${role}"`);
      const url = new URL(db.url);
      url.username = role;
      const dataSource = await open(url.toString(), { poolMax: 2, migrateOnStart: false });
      await expect(dataSource.showMigrations()).resolves.toBe(false);
      await dataSource.query(`INSERT INTO "runtime_test"."notes" ("text") VALUES ('kept')`);
      await expect(dataSource.query('SELECT "text" FROM "runtime_test"."notes"')).resolves.toEqual([
        { text: 'kept' },
      ]);
      await expect(dataSource.query('CREATE TABLE "runtime_test"."other" ("id" int)')).rejects.toThrow(
        /permission denied/,
      );
      for (const close of afterEachClose.splice(0)) await close();
    } finally {
      await admin.query(`DROP OWNED BY "${role}"`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
      await admin.end();
    }
  });
});
