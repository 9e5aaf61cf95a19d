// The scratch billing service the money-path and history benchmarks drive: a database of its own on
// the server of DATABASE_URL, a private nats-server with JetStream, and the built billing service
// (which applies its migrations to the empty database). `stop` removes all of it.
import { connect } from '@nats-io/transport-node';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from './processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The built billing service, built first when missing or when `build` asks. */
export function builtBilling({ build = false } = {}) {
  const main = join(root, 'dist/apps/billing/main.js');
  if (build || !existsSync(main)) {
    console.log('Building billing…');
    execFileSync('npx', ['nx', 'build', 'billing'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NX_DAEMON: 'false' },
    });
  }
  return main;
}

/** Starts a process and resolves once its output matches `ready`. */
function startProcess(command, argv, env, ready, label) {
  const child = spawn(command, argv, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start in 60 s:\n${output}`)), 60_000);
    const check = (chunk) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${output}`));
    });
  });
  return { child, started };
}

const stopProcess = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * A scratch database `<prefix>_<random>`, a private nats-server and `billingMain` on them. Answers
 * `client` (pg on the scratch database), `nc` (NATS), `call(subject, data)` (a request as Nest's NATS
 * transport frames it; the reply is `{response | err}`) and `stop()`. A failed start is stopped too.
 */
export async function startBillingStand({ prefix, billingMain }) {
  const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const adminUrl = new URL(serverUrl);
  adminUrl.pathname = '/postgres';
  const database = `${prefix}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${database}`;
  const withAdmin = async (sql) => {
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };

  await withAdmin(`CREATE DATABASE "${database}"`);
  const storeDir = mkdtempSync(join(tmpdir(), 'bench-nats-'));
  const processes = [];
  const stand = { databaseUrl: databaseUrl.toString(), client: null, nc: null };
  stand.stop = async () => {
    await stand.nc?.close();
    await stand.client?.end();
    for (const child of processes.reverse()) await stopProcess(child);
    await withAdmin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    rmSync(storeDir, { recursive: true, force: true });
  };
  try {
    const natsPort = await freePort();
    const nats = startProcess(
      'nats-server',
      ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', storeDir],
      {},
      /Server is ready/,
      'nats-server',
    );
    processes.push(nats.child);
    await nats.started;
    stand.natsUrl = `nats://127.0.0.1:${natsPort}`;
    const billing = startProcess(
      process.execPath,
      [billingMain],
      { DATABASE_URL: stand.databaseUrl, NATS_URL: stand.natsUrl },
      /serving on NATS/,
      'billing',
    );
    processes.push(billing.child);
    await billing.started;
    stand.client = new pg.Client({ connectionString: stand.databaseUrl });
    await stand.client.connect();
    stand.nc = await connect({ servers: stand.natsUrl });
  } catch (err) {
    await stand.stop();
    throw err;
  }
  stand.call = async (subject, data, timeout = 60_000) =>
    (
      await stand.nc.request(subject, JSON.stringify({ pattern: subject, data, id: randomUUID() }), {
        timeout,
      })
    ).json();
  return stand;
}
