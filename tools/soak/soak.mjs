#!/usr/bin/env node
// A bounded soak of the distributed mode: every service its own built process over a private
// nats-server and a database of its own on the machine's PostgreSQL (the bench's distributed
// target), mock-upstream as the provider and the local blob store. Mixed traffic runs at a steady
// rate for --minutes; the memory of each process is sampled throughout. It prints throughput, the
// error rate, each process's memory at the start, the middle and the end and its trend over the
// second half, and exits 1 on too many errors or a growth trend. `npm run soak` builds first.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { privateMbOf, processTree, residentMbOf, snapshotProcesses } from '../bench/lib/proc.mjs';
import { freePort, httpAnswers, startProcess, waitUntil } from '../bench/lib/processes.mjs';
import { distributedTarget } from '../bench/lib/targets.mjs';
import { cycle, MIX, operations } from './lib/traffic.mjs';
import { INSPECT_OPTIONS, openInspectors } from './lib/inspector.mjs';
import { formatReport, judgeRun, parseSoakOptions, USAGE } from './lib/trend.mjs';

const NODE_APPS = ['api-gateway', 'auth', 'billing', 'inference', 'media', 'storage'];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (line) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Memory of each process of the target: a Node process by its RSS and its V8 heap, both read right
 * after a full garbage collection (over its inspector), nats-server by its RSS, the PostgreSQL
 * backends serving the soak's database summed by their private memory (RssAnon: their RSS also
 * grows as they touch the server's shared buffers, which is no leak).
 */
async function sampleMemory(target, mock, inspectors) {
  const extra = (await target.extraPids?.()) ?? [];
  const tree = new Set([...processTree(target.roots(), snapshotProcesses()), ...extra]);
  const components = [...target.components(tree, extra), { name: 'mock-upstream', pids: [mock.pid] }];
  const sample = [];
  for (const { name, pids } of components) {
    if (name === 'postgres') {
      const values = pids.map(privateMbOf).filter((value) => value !== null);
      sample.push({ name: 'postgres backends', measure: 'private', mb: sum(values) });
      continue;
    }
    const inspector = inspectors.get(name);
    const heap = inspector ? await inspector.collect().catch(() => null) : null;
    const rss = residentMbOf(pids[0]);
    if (rss !== null) sample.push({ name, measure: 'RSS', mb: rss });
    if (heap !== null) sample.push({ name, measure: 'heap', mb: heap });
  }
  return sample;
}

const sum = (values) => values.reduce((total, value) => total + value, 0);
const shortSample = (sample) =>
  sample
    .filter((s) => s.measure !== 'heap')
    .map((s) => `${s.name} ${s.mb.toFixed(0)}`)
    .join(', ');

async function main() {
  const options = parseSoakOptions(process.argv.slice(2));
  if (options.help) return void process.stdout.write(USAGE);
  const work = mkdtempSync(join(tmpdir(), 'gateway-soak-'));
  const logDir = join(work, 'logs');
  mkdirSync(logDir);
  const cleanups = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch((err) => log(`cleanup: ${err.message}`));
    cleanups.length = 0;
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    const mockPort = await freePort();
    const mock = startProcess({
      name: 'mock-upstream',
      command: process.execPath,
      args: [join(ROOT, 'dist/apps/mock-upstream/main.js')],
      cwd: ROOT,
      env: { PORT: String(mockPort), LOG_LEVEL: 'warn', NODE_OPTIONS: INSPECT_OPTIONS },
      logDir,
    });
    cleanups.push(() => mock.stop());
    const mockUrl = `http://127.0.0.1:${mockPort}`;
    await waitUntil('mock-upstream', () => httpAnswers(mockUrl), {
      alive: mock.running,
      timeoutMs: 60_000,
    });
    log('starting the distributed mode (a private nats-server, five services, the gateway)');
    const target = await distributedTarget({
      root: ROOT,
      work,
      logDir,
      mockUrl,
      catalogue: join(ROOT, 'config/catalogue.demo.json'),
      serverCpus: null,
      options: { replicas: 1, databaseUrl: options.databaseUrl, natsUrl: options.natsUrl, rateLimits: false },
      env: {
        BLOB_STORE: 'local',
        BLOB_DIR: join(work, 'files'),
        BLOB_URL_SECRET: randomBytes(32).toString('base64url'),
        MOCK_MEDIA_JOB_MS: '1000',
        NODE_OPTIONS: INSPECT_OPTIONS,
      },
    });
    cleanups.push(() => target.stop());
    const inspectors = await openInspectors(
      [...NODE_APPS, 'mock-upstream'].map((name) => ({ name, logFile: join(logDir, `${name}.log`) })),
    );
    // Closed before the processes stop: a Node process waits for an attached inspector at exit.
    cleanups.push(() => Promise.all([...inspectors.values()].map((session) => session.close())));
    const key = /Bearer (\S+)/.exec(target.headers)[1];
    log(`logs in ${logDir}; ${options.minutes} min at ${options.rate} operations/s`);
    await runSoak(target, mock, inspectors, operations(target.base, key), options);
  } finally {
    await cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

async function runSoak(target, mock, inspectors, ops, options) {
  const seconds = options.minutes * 60;
  const order = cycle(MIX);
  const stats = Object.fromEntries(
    Object.keys(MIX).map((name) => [name, { ok: 0, failed: 0, latencies: [] }]),
  );
  const firstErrors = new Map();
  const series = new Map();
  let inFlight = 0;
  const running = new Set();

  const started = Date.now();
  const minutesNow = () => (Date.now() - started) / 60_000;
  const record = (sample) => {
    const t = minutesNow();
    for (const { name, measure, mb } of sample) {
      const key = `${name} ${measure}`;
      if (!series.has(key)) series.set(key, { name, measure, points: [] });
      series.get(key).points.push({ t, y: mb });
    }
  };
  const start = await sampleMemory(target, mock, inspectors);
  record(start);
  log(`memory at the start (MB): ${shortSample(start)}`);

  const fail = (name, err) => {
    stats[name].failed++;
    const message = err?.message ?? String(err);
    if (firstErrors.size < 10 && !firstErrors.has(message)) firstErrors.set(message, name);
  };
  const launch = (name) => {
    if (inFlight >= options.maxInFlight)
      return fail(name, new Error(`${options.maxInFlight} operations in flight`));
    inFlight++;
    const began = performance.now();
    const done = ops[name]().then(
      () => {
        stats[name].ok++;
        stats[name].latencies.push(performance.now() - began);
      },
      (err) => fail(name, err),
    );
    const tracked = done.finally(() => {
      inFlight--;
      running.delete(tracked);
    });
    running.add(tracked);
  };

  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    sampleMemory(target, mock, inspectors)
      .then(record, (err) => log(`sample failed: ${err.message}`))
      .finally(() => (sampling = false));
  }, options.sampleSeconds * 1000);
  let middleShown = false;
  let nextProgress = 1;
  const intervalMs = 1000 / options.rate;
  let launched = 0;
  // Open loop: the nth operation starts at n / rate seconds, whatever the earlier ones took.
  while (Date.now() - started < seconds * 1000) {
    const due = started + launched * intervalMs;
    if (Date.now() < due) await sleep(due - Date.now());
    launch(order[launched % order.length]);
    launched++;
    if (!middleShown && minutesNow() >= options.minutes / 2) {
      middleShown = true;
      const middle = await sampleMemory(target, mock, inspectors);
      record(middle);
      log(`memory at the middle (MB): ${shortSample(middle)}`);
    }
    if (minutesNow() >= nextProgress) {
      nextProgress++;
      const ok = sum(Object.values(stats).map((s) => s.ok));
      const failed = sum(Object.values(stats).map((s) => s.failed));
      log(`${Math.floor(minutesNow())} min: ${ok} ok, ${failed} failed, ${inFlight} in flight`);
    }
  }
  clearInterval(sampler);
  const trafficSeconds = (Date.now() - started) / 1000;
  const end = await sampleMemory(target, mock, inspectors);
  record(end);
  log(`memory at the end (MB): ${shortSample(end)}`);
  // Operations still running finish (each is bounded by its own timeout); they count.
  let drainTimer;
  await Promise.race([
    Promise.all(running),
    new Promise((resolve) => (drainTimer = setTimeout(resolve, 70_000))),
  ]);
  clearTimeout(drainTimer);
  const verdict = judgeRun({ operations: stats, series: [...series.values()], options });
  process.stdout.write(
    `\n${formatReport({ verdict, operations: stats, seconds: trafficSeconds, options })}\n`,
  );
  if (firstErrors.size > 0) {
    process.stdout.write('\nFirst distinct errors:\n');
    for (const [message, name] of firstErrors) process.stdout.write(`  ${name}: ${message}\n`);
  }
  process.exitCode = verdict.pass ? 0 : 1;
}

main().catch((err) => {
  process.stderr.write(`soak failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
