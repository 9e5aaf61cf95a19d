import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The Postgres of this machine and of CI; override with TEST_DATABASE_URL. */
export const TEST_DATABASE_ADMIN_URL =
  process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file, dropped (with its connections) at the end. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A subject prefix unique to one test run, so parallel test files never see each other's NATS traffic. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}
