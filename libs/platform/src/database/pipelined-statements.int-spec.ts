import { createTestDatabase, type TestDatabase } from '@gw/testing';
import type { Socket } from 'node:net';
import type { Client } from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { BEGIN_WITHOUT_WAL_FLUSH, runPipelined, runPipelinedTransaction } from './pipelined-statements';
import { preparedStatement } from './prepared-statements';
import {
  migrateServiceDatabase,
  serviceDataSourceOptions,
  type ServiceDatabaseOptions,
} from './service-database';

class CreateItems1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE TABLE "pipelined_test"."items" ("id" integer PRIMARY KEY, "name" text NOT NULL)',
    );
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE "pipelined_test"."items"');
  }
}

const INSERT_ITEM = preparedStatement(`INSERT INTO "pipelined_test"."items" ("id", "name") VALUES ($1, $2)`);
const ITEM_NAMES = preparedStatement(
  `SELECT "name" FROM "pipelined_test"."items" WHERE "id" = ANY($1::int[]) ORDER BY "id"`,
);

describe('statements sent in one round trip (decision 197)', () => {
  let db: TestDatabase;
  let options: ServiceDatabaseOptions;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('pipelined_statements');
    options = { url: db.url, schema: 'pipelined_test', entities: [], migrations: [CreateItems1700000000000] };
    await migrateServiceDatabase(options);
    dataSource = await new DataSource(serviceDataSourceOptions({ ...options, pipeline: true })).initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
    await db.drop();
  });
  beforeEach(() => dataSource.query('TRUNCATE "pipelined_test"."items"'));

  /** Runs `work` on one connection of the pool, counting the writes its socket makes. */
  async function onConnection<T>(
    work: (client: Client) => Promise<T>,
  ): Promise<{ result: T; writes: number }> {
    const runner = dataSource.createQueryRunner();
    try {
      const client = (await runner.connect()) as Client;
      const socket = client.connection.stream as Socket & {
        _write: (...args: unknown[]) => void;
        _writev: (...args: unknown[]) => void;
      };
      let writes = 0;
      const [write, writev] = [socket._write.bind(socket), socket._writev.bind(socket)];
      socket._write = (...args) => (writes++, write(...args));
      socket._writev = (...args) => (writes++, writev(...args));
      try {
        const result = await work(client);
        return { result, writes };
      } finally {
        Reflect.deleteProperty(socket, '_write');
        Reflect.deleteProperty(socket, '_writev');
      }
    } finally {
      await runner.release();
    }
  }

  it('sends a transaction of prepared statements in one write and answers each in order', async () => {
    const { result, writes } = await onConnection((client) =>
      runPipelined(client, [
        { text: 'BEGIN' },
        { text: INSERT_ITEM, values: [1, 'one'] },
        { text: INSERT_ITEM, values: [2, 'two'] },
        { text: ITEM_NAMES, values: [[2, 1]] },
        { text: 'COMMIT' },
      ]),
    );
    expect(writes).toBe(1);
    expect(result.map((answer) => answer.command)).toEqual(['BEGIN', 'INSERT', 'INSERT', 'SELECT', 'COMMIT']);
    expect(result[3].rows).toEqual([{ name: 'one' }, { name: 'two' }]);
    await expect(dataSource.query(ITEM_NAMES, [[1, 2]])).resolves.toHaveLength(2);
    // Run again on a connection that prepared them: bound and executed, still one write.
    const again = await onConnection((client) =>
      runPipelined(client, [
        { text: INSERT_ITEM, values: [3, 'three'] },
        { text: ITEM_NAMES, values: [[3]] },
      ]),
    );
    expect(again.writes).toBe(1);
    expect(again.result[1].rows).toEqual([{ name: 'three' }]);
  });

  it('keeps nothing of a transaction whose statement fails, fails with that statement, and leaves the connection usable', async () => {
    await dataSource.query(INSERT_ITEM, [1, 'one']);
    const { result: failure } = await onConnection(async (client) => {
      const failed = await runPipelined(client, [
        { text: 'BEGIN' },
        { text: INSERT_ITEM, values: [2, 'two'] },
        { text: INSERT_ITEM, values: [1, 'one again'] },
        { text: INSERT_ITEM, values: [3, 'three'] },
        { text: 'COMMIT' },
      ]).catch((err: unknown) => err as { code?: string; constraint?: string });
      // The COMMIT after the failure rolled back: no transaction is left open on the connection.
      expect(client.getTransactionStatus()).toBe('I');
      await expect(runPipelined(client, [{ text: ITEM_NAMES, values: [[1, 2, 3]] }])).resolves.toMatchObject([
        { rows: [{ name: 'one' }] },
      ]);
      return failed;
    });
    expect(failure).toMatchObject({ code: '23505', constraint: 'items_pkey' });
  });

  it('runs BEGIN, the statements and COMMIT as one pipelined round: answers the statements, keeps nothing when one fails', async () => {
    const written = await runPipelinedTransaction(dataSource, BEGIN_WITHOUT_WAL_FLUSH, [
      { text: INSERT_ITEM, values: [1, 'one'] },
      { text: ITEM_NAMES, values: [[1]] },
    ]);
    expect(written.map((answer) => answer.command)).toEqual(['INSERT', 'SELECT']);
    expect(written[1].rows).toEqual([{ name: 'one' }]);

    await expect(
      runPipelinedTransaction(dataSource, 'BEGIN', [
        { text: INSERT_ITEM, values: [2, 'two'] },
        { text: INSERT_ITEM, values: [1, 'one again'] },
      ]),
    ).rejects.toMatchObject({ code: '23505', constraint: 'items_pkey' });
    await expect(dataSource.query(ITEM_NAMES, [[1, 2]])).resolves.toEqual([{ name: 'one' }]);
  });

  it('refuses a connection that is not in pipeline mode, where the statements would wait for each other', async () => {
    const sequential = await new DataSource(serviceDataSourceOptions(options)).initialize();
    const runner = sequential.createQueryRunner();
    try {
      const client = (await runner.connect()) as Client;
      await expect(runPipelined(client, [{ text: 'SELECT 1' }])).rejects.toThrow(
        'runPipelined needs a client in pg pipeline mode',
      );
    } finally {
      await runner.release();
      await sequential.destroy();
    }
  });
});
