#!/usr/bin/env node
// Password guessing on console login: how many wrong passwords for one account the gateway checks
// per second from one client. Starts the built embedded app (run `npx nx build embedded` first) and
// guesses the demo account's password for a bounded time, on loopback only.
//   node tools/bench/login-guesses.mjs [--seconds 10] [--concurrency 4]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs),
      [],
    ),
);
const SECONDS = Number(args.seconds ?? 10);
const CONCURRENCY = Number(args.concurrency ?? 4);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function startEmbedded(env) {
  const child = spawn(process.execPath, ['dist/apps/embedded/main.js'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(/Console login\s+(\S+) \/ (\S+)/);
      if (match) resolve({ child, email: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => reject(new Error(`embedded exited:\n${output}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
let child;
try {
  const port = await freePort();
  const embedded = await startEmbedded({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  });
  child = embedded.child;
  const url = `http://127.0.0.1:${port}/api/auth/login`;
  const statuses = {};
  let guess = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: embedded.email, password: `wrong guess ${guess++}` }),
        });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${SECONDS} s of wrong passwords for ${embedded.email}, ${CONCURRENCY} in flight, on ${process.version}`,
  );
  console.log(`answers by status: ${JSON.stringify(statuses)}`);
  console.log(`guesses checked (401) per second: ${((statuses[401] ?? 0) / seconds).toFixed(2)}`);
} finally {
  child?.kill('SIGTERM');
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 1500);
}
