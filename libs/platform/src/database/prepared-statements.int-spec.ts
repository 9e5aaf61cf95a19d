import { createTestDatabase, type TestDatabase } from '@gw/testing';
import { DataSource, type MigrationInterface, QueryFailedError, type QueryRunner } from 'typeorm';
import { MAX_PREPARED_TEXTS, preparedStatement } from './prepared-statements';
import {
  migrateServiceDatabase,
  serviceDataSourceOptions,
  type ServiceDatabaseOptions,
} from './service-database';

class CreateNotes1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE TABLE "prepared_test"."notes" ("id" integer PRIMARY KEY, "text" text NOT NULL)',
    );
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "prepared_test"."notes"');
  }
}

const INSERT_NOTES = preparedStatement(
  `INSERT INTO "prepared_test"."notes" ("id", "text")
   SELECT * FROM unnest($1::int[], $2::text[]) RETURNING "id"`,
);
const NOTES_BY_ID = preparedStatement(
  `SELECT "id", "text" FROM "prepared_test"."notes" WHERE "id" = ANY($1::int[]) ORDER BY "id"`,
);
const NOTE_COUNT_UNMARKED = `SELECT count(*)::int AS "count" FROM "prepared_test"."notes" WHERE "id" > $1`;

interface PreparedRow {
  statement: string;
  from_sql: boolean;
  executions: number;
}

describe('statements marked prepared (decision 194)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let options: ServiceDatabaseOptions;

  beforeEach(async () => {
    db = await createTestDatabase('prepared_statements');
    options = { url: db.url, schema: 'prepared_test', entities: [], migrations: [CreateNotes1700000000000] };
    await migrateServiceDatabase(options);
    // One connection, so that every statement of a test and the look at pg_prepared_statements share it.
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, poolSize: 1 })).initialize();
  });
  afterEach(async () => {
    await dataSource.destroy();
    await db.drop();
  });

  /** What the pool's one connection has prepared, with how often each was executed. */
  const prepared = (): Promise<PreparedRow[]> =>
    dataSource.query(
      `SELECT "statement", "from_sql", ("generic_plans" + "custom_plans")::int AS "executions"
         FROM pg_prepared_statements ORDER BY "statement"`,
    );

  it('runs a marked statement as one prepared statement of its connection, with each call its own values', async () => {
    await expect(
      dataSource.query(INSERT_NOTES, [
        [1, 2],
        ['one', 'two'],
      ]),
    ).resolves.toEqual([{ id: 1 }, { id: 2 }]);
    await expect(dataSource.query(INSERT_NOTES, [[3], ['three']])).resolves.toEqual([{ id: 3 }]);
    await expect(dataSource.query(NOTES_BY_ID, [[3, 1]])).resolves.toEqual([
      { id: 1, text: 'one' },
      { id: 3, text: 'three' },
    ]);
    await expect(dataSource.query(NOTES_BY_ID, [[2]])).resolves.toEqual([{ id: 2, text: 'two' }]);
    await expect(dataSource.query(NOTE_COUNT_UNMARKED, [1])).resolves.toEqual([{ count: 2 }]);

    // The unmarked statement went unnamed, as pg sends it: nothing of it stays on the connection.
    await expect(prepared()).resolves.toEqual([
      { statement: INSERT_NOTES, from_sql: false, executions: 2 },
      { statement: NOTES_BY_ID, from_sql: false, executions: 2 },
    ]);
  });

  it("names each connection after the service's schema, so pg_stat_activity tells the services apart", async () => {
    await expect(
      dataSource.query(`SELECT "application_name" FROM pg_stat_activity WHERE "pid" = pg_backend_pid()`),
    ).resolves.toEqual([{ application_name: 'prepared_test' }]);
  });

  it('runs marked statements in a transaction, and a failure there is the same QueryFailedError with its SQLSTATE', async () => {
    await dataSource.query(INSERT_NOTES, [[1], ['one']]);
    const failure = await dataSource
      .transaction(async (manager) => {
        await manager.query(INSERT_NOTES, [[2], ['two']]);
        await manager.query(INSERT_NOTES, [[1], ['one again']]);
      })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('23505');

    // Rolled back whole, and the connection goes on serving the statement it prepared.
    await expect(dataSource.query(NOTES_BY_ID, [[1, 2]])).resolves.toEqual([{ id: 1, text: 'one' }]);
    await dataSource.transaction((manager) => manager.query(INSERT_NOTES, [[2], ['two']]));
    await expect(dataSource.query(NOTES_BY_ID, [[1, 2]])).resolves.toHaveLength(2);
  });

  it('keeps no statement PostgreSQL refused to prepare: it is prepared once the table it reads exists', async () => {
    const pending = preparedStatement(`SELECT "id" FROM "prepared_test"."later" WHERE "id" = ANY($1::int[])`);
    await expect(dataSource.query(pending, [[1]])).rejects.toThrow(
      'relation "prepared_test.later" does not exist',
    );
    await expect(prepared()).resolves.toEqual([]);

    await dataSource.query(`CREATE TABLE "prepared_test"."later" ("id" integer PRIMARY KEY)`);
    await dataSource.query(`INSERT INTO "prepared_test"."later" VALUES (1), (2)`);
    await expect(dataSource.query(pending, [[2]])).resolves.toEqual([{ id: 2 }]);
    await expect(prepared()).resolves.toEqual([{ statement: pending, from_sql: false, executions: 1 }]);
  });

  it('prepares a marked statement again on the connection that replaces a lost one', async () => {
    await dataSource.query(INSERT_NOTES, [[1], ['one']]);
    const [{ pid }] = await dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS "pid"');
    const admin = await new DataSource(serviceDataSourceOptions(options)).initialize();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.destroy();
    }

    // The pool drops the dead connection on its error; the next statement runs on a new one.
    let rows: unknown;
    for (let attempt = 0; attempt < 20 && rows === undefined; attempt++) {
      rows = await dataSource.query(NOTES_BY_ID, [[1]]).catch(() => undefined);
    }
    expect(rows).toEqual([{ id: 1, text: 'one' }]);
    const [{ pid: newPid }] = await dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS "pid"');
    expect(newPid).not.toBe(pid);
    await expect(dataSource.query(INSERT_NOTES, [[2], ['two']])).resolves.toEqual([{ id: 2 }]);
    await expect(prepared()).resolves.toEqual([
      { statement: INSERT_NOTES, from_sql: false, executions: 1 },
      { statement: NOTES_BY_ID, from_sql: false, executions: 1 },
    ]);
  });

  it(`sends texts unnamed past ${MAX_PREPARED_TEXTS} marked ones, so that texts built per call cannot fill a connection`, async () => {
    // Run last: it fills this test file's registry.
    const built = (n: number) => `SELECT $1::int + ${n} AS "sum"`;
    for (let n = 0; n < MAX_PREPARED_TEXTS; n++) preparedStatement(built(n));
    await expect(dataSource.query(built(MAX_PREPARED_TEXTS), [1])).resolves.toEqual([
      { sum: 1 + MAX_PREPARED_TEXTS },
    ]);
    await expect(dataSource.query(NOTES_BY_ID, [[1]])).resolves.toEqual([]);
    await expect(dataSource.query(built(0), [1])).resolves.toEqual([{ sum: 1 }]);
    const statements = (await prepared()).map((row) => row.statement);
    expect(statements.sort()).toEqual([built(0), NOTES_BY_ID].sort());
  });
});
