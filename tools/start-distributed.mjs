#!/usr/bin/env node
// The distributed mode on one machine: every service its own process, against the NATS and
// PostgreSQL given by NATS_URL and DATABASE_URL (defaults: this machine's 127.0.0.1:4222 and
// postgres on 127.0.0.1:5432), plus mock-upstream. Run `npm run start:distributed` (it builds first).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const env = {
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/gateway',
  JWT_SECRET: process.env.JWT_SECRET ?? randomBytes(32).toString('base64url'),
  ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? `adm-${randomBytes(24).toString('base64url')}`,
  MOCK_UPSTREAM_PORT: process.env.MOCK_UPSTREAM_PORT ?? '4010',
  PORT: process.env.PORT ?? '3000',
  LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty',
  // Files in a local directory shared by storage, media and the gateway, served by the gateway's signed route.
  BLOB_URL_SECRET: process.env.BLOB_URL_SECRET ?? randomBytes(32).toString('base64url'),
  BLOB_PUBLIC_URL: process.env.BLOB_PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? '3000'}/api`,
};

async function ensureDatabase(url) {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  await client.end();
}

const children = [];
function start(app, extraEnv) {
  const child = spawn(process.execPath, [`dist/apps/${app}/main.js`], {
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${app}]`.padEnd(16);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
    });
  }
  child.on('exit', (code, signal) => process.stdout.write(`${prefix}exited (${signal ?? code})\n`));
  children.push(child);
}

try {
  await ensureDatabase(env.DATABASE_URL);
} catch (err) {
  const { hostname, port, pathname } = new URL(env.DATABASE_URL);
  console.error(
    `Cannot reach PostgreSQL at ${hostname}:${port || 5432}${pathname} (DATABASE_URL): ${err.message || err.code}; start it or set DATABASE_URL`,
  );
  process.exit(1);
}
start('mock-upstream', { PORT: env.MOCK_UPSTREAM_PORT });
for (const service of ['auth', 'billing', 'inference', 'media', 'storage']) {
  start(service, { MOCK_UPSTREAM_URL: `http://127.0.0.1:${env.MOCK_UPSTREAM_PORT}` });
}
start('api-gateway', {});

const api = `http://localhost:${env.PORT}/api`;
process.stdout.write(
  [
    '',
    `  Distributed mode: gateway on ${api} (Swagger UI ${api}/docs), NATS ${env.NATS_URL}`,
    `  Admin token: ${env.ADMIN_TOKEN}`,
    '  Create an organization and a key with the operator API, e.g.:',
    `  curl -s -X POST ${api}/admin/organizations -H "Authorization: Bearer ${env.ADMIN_TOKEN}" -H "Content-Type: application/json" -d '{"name":"Acme"}'`,
    '',
  ].join('\n') + '\n',
);

// The gateway first, so that no new request reaches the services, which then finish theirs
// (SHUTDOWN_GRACE_MS at most) and drain NATS. A second Ctrl-C stops everything at once.
const running = (child) => child.exitCode === null && child.signalCode === null;
const exited = (child) =>
  running(child) ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
let stopping = false;
const stopAll = async () => {
  if (stopping) {
    for (const child of children.filter(running)) child.kill('SIGKILL');
    process.exit(1);
  }
  stopping = true;
  const gateway = children.at(-1);
  gateway.kill('SIGTERM');
  await exited(gateway);
  for (const child of children.filter(running)) child.kill('SIGTERM');
  await Promise.all(children.map(exited));
  process.exit(0);
};
process.on('SIGINT', () => void stopAll());
process.on('SIGTERM', () => void stopAll());
