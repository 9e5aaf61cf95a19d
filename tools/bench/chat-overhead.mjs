#!/usr/bin/env node
// Gateway overhead on chat completions: the same request straight to mock-upstream and through the
// gateway (auth, reservation, upstream call, usage event), sequential latency and concurrent
// throughput. Starts the built embedded app and a mock-upstream of its own (run `npx nx build
// embedded mock-upstream` first), or measures a running gateway with --target <api url> --key <key>.
//   node tools/bench/chat-overhead.mjs [--requests 500] [--concurrency 16] [--target URL --key KEY]
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
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
const REQUESTS = Number(args.requests ?? 500);
const CONCURRENCY = Number(args.concurrency ?? 16);
const WARMUP = 50;
const MOCK_KEY = 'mock-upstream-key';

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function start(app, env, ready) {
  const child = spawn(process.execPath, [`dist/apps/${app}/main.js`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(ready);
      if (match) resolve({ child, match });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => reject(new Error(`${app} exited:\n${output}`)));
  });
}

const body = JSON.stringify({
  model: 'demo/chat',
  messages: [{ role: 'user', content: 'measure the gateway overhead please' }],
  max_tokens: 16,
});
const upstreamBody = JSON.stringify({
  model: 'alpha-chat',
  messages: [{ role: 'user', content: 'measure the gateway overhead please' }],
  max_tokens: 16,
});

async function call(url, key, payload) {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: payload,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - started;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(label, url, key, payload) {
  for (let i = 0; i < WARMUP; i++) await call(url, key, payload);
  const sequential = [];
  for (let i = 0; i < REQUESTS; i++) sequential.push(await call(url, key, payload));
  sequential.sort((a, b) => a - b);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) await call(url, key, payload);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const row = {
    target: label,
    'p50 ms': percentile(sequential, 50).toFixed(2),
    'p90 ms': percentile(sequential, 90).toFixed(2),
    'p99 ms': percentile(sequential, 99).toFixed(2),
    [`req/s @${CONCURRENCY}`]: (REQUESTS / seconds).toFixed(0),
  };
  return { row, p50: percentile(sequential, 50) };
}

const children = [];
const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
// Enterable by others, so that as root the embedded PostgreSQL keeps its cluster inside it and is removed with it.
chmodSync(dataDir, 0o755);
try {
  let api = args.target;
  let key = args.key;
  const mockPort = await freePort();
  children.push(
    (await start('mock-upstream', { PORT: String(mockPort), HOST: '127.0.0.1' }, /listening on/)).child,
  );
  if (!api) {
    const port = await freePort();
    const embedded = await start(
      'embedded',
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        // The limiter runs (its cost is part of the overhead) but the bench's requests stay under it.
        RATE_LIMIT_RPM_PER_KEY: '1000000',
        RATE_LIMIT_RPM_PER_ORGANIZATION: '1000000',
        RATE_LIMIT_CONCURRENT_PER_KEY: '1000',
        RATE_LIMIT_CONCURRENT_PER_ORGANIZATION: '1000',
      },
      /Demo API key\s+(\S+)/,
    );
    children.push(embedded.child);
    api = `http://127.0.0.1:${port}/api`;
    key = embedded.match[1];
  }
  console.log(
    `${REQUESTS} sequential requests (after ${WARMUP} warm-up) and ${REQUESTS} with ${CONCURRENCY} in flight, on ${process.version}\n`,
  );
  const direct = await measure(
    'mock-upstream directly',
    `http://127.0.0.1:${mockPort}/alpha/v1/chat/completions`,
    MOCK_KEY,
    upstreamBody,
  );
  const gateway = await measure('through the gateway', `${api}/v1/chat/completions`, key, body);
  console.table([direct.row, gateway.row]);
  console.log(`gateway overhead at p50: ${(gateway.p50 - direct.p50).toFixed(2)} ms per request`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 1500);
}
