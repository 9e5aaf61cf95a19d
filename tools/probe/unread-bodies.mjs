// Memory of the gateway under the black-box probe of issue 10: 16 concurrent unauthenticated
// 39 MB JSON bodies to a route that does not exist. Starts a built gateway, samples its resident
// memory before, during and after, and times /api/health while the bodies arrive.
//
//   node tools/probe/unread-bodies.mjs [path/to/api-gateway/main.js]
//
// Needs the NATS of the distributed mode (NATS_URL, default nats://127.0.0.1:4222). Linux only
// (reads /proc/<pid>/status).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

const MAIN = process.argv[2] ?? 'dist/apps/api-gateway/main.js';
const BODIES = 16;
const BODY_BYTES = 39 * 1024 * 1024;

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

function send(port, path, body) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    // The gateway may close the connection once it has answered, while the body is still being sent.
    req.on('error', (err) => resolve({ status: err.code, ms: performance.now() - started }));
    req.end(body);
  });
}

const port = await freePort();
const gateway = spawn(process.execPath, [MAIN], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    JWT_SECRET: 'probe-jwt-secret-0123456789',
    ADMIN_TOKEN: 'probe-admin-token-0123456789',
    LOG_LEVEL: 'error',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  for (let i = 0; ; i++) {
    if ((await send(port, '/api/health')).status === 200) break;
    if (i > 200) throw new Error('the gateway did not start');
    await sleep(100);
  }
  await sleep(1000);
  const before = rssMb(gateway.pid);
  const body = Buffer.from(`{"x":"${'a'.repeat(BODY_BYTES - 8)}"}`);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gateway.pid))), 25);
  const attack = Promise.all(Array.from({ length: BODIES }, () => send(port, '/api/v1/no-such-route', body)));
  const health = [];
  let done = false;
  void attack.then(() => (done = true));
  while (!done) {
    health.push((await send(port, '/api/health')).ms);
    await sleep(50);
  }
  const answers = await attack;
  clearInterval(sampler);
  await sleep(2000);
  const after = rssMb(gateway.pid);
  const round = (n) => Math.round(n);
  console.log(
    JSON.stringify({
      gateway: MAIN,
      bodies: `${BODIES} x ${BODY_BYTES / 1024 / 1024} MB, unauthenticated, unknown route`,
      answers: [...new Set(answers.map((a) => a.status))],
      slowestAnswerMs: round(Math.max(...answers.map((a) => a.ms))),
      rssMb: { before: round(before), peak: round(peak), after2s: round(after), kept: round(after - before) },
      healthLatencyMs: { samples: health.length, max: round(Math.max(0, ...health)) },
    }),
  );
} finally {
  gateway.kill('SIGTERM');
}
