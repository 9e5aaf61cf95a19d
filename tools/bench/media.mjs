#!/usr/bin/env node
// `npm run bench:media`: issue 21's two media figures, on this machine.
//
// (a) What waiting costs: the CPU of the media service's own process (distributed mode, so that it
//     is a process of its own) over a fixed window, first with no jobs, then with --jobs async
//     video generations pending at the provider. The provider is the repo's mock-upstream app with
//     MOCK_MEDIA_JOB_MS at its 10-minute maximum, so no job ends during the run; the window starts
//     once the last job's polls have backed off to their ceiling (MEDIA_POLL_MAX_MS, 10 s by
//     default: polls 1, 2, 4 and 8 s apart, then 10 s), which is the state a long video spends
//     nearly all its life in.
// (b) Image generations per second beside chat completions per second, in the embedded mode (one
//     process, its mock-upstream inside), both answered by the demo catalogue's models through the
//     same in-process mock: demo/image at 256x256 with a url result (the file written to the blob
//     store), demo/chat non-streamed. A closed loop of plain HTTP from this process, per connection
//     count, --duration s each, after a short warm-up.
//
// Both modes get an organization with 10,000,000 RUB and an API key through the operator API and
// the rate limiter turned off (lib/targets.mjs). Build first (the npm script does):
//   npx nx run-many -t build -p embedded api-gateway auth billing inference media storage mock-upstream
//   node tools/bench/media.mjs [--jobs 1000] [--window 20] [--duration 8] [--connections 8,32]
//                              [--database-url postgres://postgres@127.0.0.1:5432/postgres]
// The distributed mode uses a private nats-server and a scratch database bench_gw_<random> on
// --database-url's server, dropped at the end. About 2.5 minutes on a busy two-core machine.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedLoop } from './lib/http-load.mjs';
import {
  cpuSecondsBetween,
  machineBusyBetween,
  processTree,
  readCpuCores,
  snapshotProcesses,
} from './lib/proc.mjs';
import { freePort, httpAnswers, startProcess, waitUntil } from './lib/processes.mjs';
import { distributedTarget, embeddedTarget } from './lib/targets.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const APPS = ['embedded', 'api-gateway', 'auth', 'billing', 'inference', 'media', 'storage', 'mock-upstream'];
/** The mock's longest video job: none of the bench's jobs ends while it runs. */
const JOB_MS = '600000';
/** Polls 1 + 2 + 4 + 8 s after the provider's job is created, then 10 s apart (the media service's defaults). */
const BACKOFF_TO_CEILING_MS = 16_000;
const UNFINISHED = ['pending', 'processing'];

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const JOBS = Number(option('jobs', 1000));
const WINDOW_S = Number(option('window', 20));
const DURATION_S = Number(option('duration', 8));
const CONNECTIONS = option('connections', '8,32').split(',').map(Number);
const DATABASE_URL = option('database-url', 'postgres://postgres@127.0.0.1:5432/postgres');

/** What the bench has running now, stopped last first at the end of each part or on Ctrl-C. */
const running = [];
async function stopRunning() {
  while (running.length) {
    const { name, stop } = running.pop();
    log(`stopping ${name}`);
    await stop().catch((err) => log(`stopping ${name}: ${err.message}`));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const authorization = (target) => target.headers.replace(/^Authorization:\s*/i, '');

async function call(target, method, path, body) {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: { authorization: authorization(target), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time. */
async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * The CPU of `pid` over `seconds`, in % of one core, and how busy the machine was meanwhile apart
 * from `ownPids()` (the bench's own processes), in % of all its cores.
 */
async function cpuWindow(pid, seconds, ownPids) {
  const before = snapshotProcesses();
  const coresBefore = readCpuCores();
  const began = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - began) / 1000;
  const after = snapshotProcesses();
  const machine = machineBusyBetween(coresBefore, readCpuCores());
  const own = cpuSecondsBetween(before, after, processTree([process.pid, ...(await ownPids())], after));
  return {
    cpuPct: (100 * cpuSecondsBetween(before, after, new Set([pid]))) / wall,
    othersPct: (100 * Math.max(0, machine.busySeconds - own)) / (machine.wallSeconds * coresBefore.length),
  };
}

/** (a): the media process's CPU with no jobs, then with JOBS videos pending at the provider. */
async function pendingJobsCost(ctx) {
  const mockPort = await freePort();
  const mock = startProcess({
    name: 'mock-upstream',
    command: process.execPath,
    args: [join(ROOT, 'dist/apps/mock-upstream/main.js')],
    cwd: ROOT,
    env: { PORT: String(mockPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MOCK_MEDIA_JOB_MS: JOB_MS },
    logDir: ctx.logDir,
  });
  running.push(mock);
  try {
    const mockUrl = `http://127.0.0.1:${mockPort}`;
    await waitUntil('mock-upstream', () => httpAnswers(mockUrl), { alive: mock.running, timeoutMs: 60_000 });
    log('starting the distributed mode');
    const target = await distributedTarget({
      ...ctx,
      mockUrl,
      options: { ...ctx.options, natsUrl: null, replicas: 1 },
    });
    running.push(target);
    const media = target.components(new Set(), []).find((component) => component.name === 'media').pids[0];
    const ownPids = async () => [...target.roots(), ...(await target.extraPids()), mock.pid];
    // Start-up work (migrations, first connections) is over by then.
    await sleep(3000);
    log(`no jobs: measuring media (pid ${media}) for ${WINDOW_S} s`);
    const idle = await cpuWindow(media, WINDOW_S, ownPids);

    log(`creating ${JOBS} async videos`);
    const ids = [];
    const createdAt = performance.now();
    await pool(JOBS, 32, async (i) => {
      const created = await call(target, 'POST', '/v1/media', {
        model: 'demo/video',
        params: { prompt: `bench video ${i}`, duration: 5 },
        async: true,
      });
      // A runner may claim the job before the answer is sent: then it is already processing.
      if (!UNFINISHED.includes(created.status)) throw new Error(`video ${i} was created ${created.status}`);
      ids[i] = created.id;
    });
    const createSeconds = (performance.now() - createdAt) / 1000;
    log(`${JOBS} created in ${createSeconds.toFixed(1)} s; waiting for the last to be submitted`);
    await waitUntil(
      'the last video at the provider',
      async () => (await call(target, 'GET', `/v1/media/${ids[JOBS - 1]}`)).status === 'processing',
      { timeoutMs: 120_000 },
    );
    log(`submitted; ${BACKOFF_TO_CEILING_MS / 1000} s for its polls to back off to the ceiling`);
    await sleep(BACKOFF_TO_CEILING_MS);
    log(`${JOBS} pending: measuring media for ${WINDOW_S} s`);
    const busy = await cpuWindow(media, WINDOW_S, ownPids);
    const sample = [ids[0], ids[Math.floor(JOBS / 2)], ids[JOBS - 1]];
    for (const id of sample) {
      const { status } = await call(target, 'GET', `/v1/media/${id}`);
      if (!UNFINISHED.includes(status))
        throw new Error(`video ${id} is ${status} after the window, not pending`);
    }
    return { idle, busy, createSeconds };
  } finally {
    await stopRunning();
  }
}

/** (b): images and chats per second in the embedded mode, at each connection count. */
async function throughput(ctx) {
  log('starting the embedded mode');
  const target = await embeddedTarget(ctx);
  running.push(target);
  try {
    const scenarios = {
      chat: {
        path: '/v1/chat/completions',
        body: {
          model: 'demo/chat',
          messages: [{ role: 'user', content: 'Write one short sentence about the sea.' }],
          max_tokens: 64,
        },
        accepted: (text) => text.includes('"choices"'),
      },
      image: {
        path: '/v2/images/generations',
        body: { model: 'demo/image', prompt: 'A lighthouse at dusk', size: '256x256' },
        accepted: (text) => text.includes('"url"'),
      },
    };
    const run = (name, connections, seconds) =>
      closedLoop({
        url: `${target.base}${scenarios[name].path}`,
        headers: { authorization: authorization(target) },
        body: scenarios[name].body,
        connections,
        seconds,
        accepted: scenarios[name].accepted,
      });
    for (const name of Object.keys(scenarios)) {
      const warm = await run(name, 8, 2);
      if (warm.requests === 0) throw new Error(`${name}: no request succeeded: ${warm.firstError}`);
    }
    const rows = [];
    for (const connections of CONNECTIONS)
      for (const name of Object.keys(scenarios)) {
        const coresBefore = readCpuCores();
        const before = snapshotProcesses();
        const result = await run(name, connections, DURATION_S);
        const after = snapshotProcesses();
        const machine = machineBusyBetween(coresBefore, readCpuCores());
        const own = cpuSecondsBetween(before, after, processTree([process.pid, ...target.roots()], after));
        const cpu = cpuSecondsBetween(before, after, processTree(target.roots(), after));
        log(
          `${name} c=${connections}: ${result.rps.toFixed(1)}/s, errors ${result.errors}` +
            (result.firstError ? ` (${result.firstError})` : ''),
        );
        rows.push({
          scenario: name,
          connections,
          'per s': result.rps.toFixed(1),
          'p50 ms': result.p50_ms?.toFixed(1) ?? '-',
          'p99 ms': result.p99_ms?.toFixed(1) ?? '-',
          'embedded CPU ms/req': result.requests ? ((cpu * 1000) / result.requests).toFixed(2) : '-',
          errors: result.errors,
          'others %': (
            (100 * Math.max(0, machine.busySeconds - own)) /
            (machine.wallSeconds * coresBefore.length)
          ).toFixed(0),
        });
      }
    return rows;
  } finally {
    await stopRunning();
  }
}

async function main() {
  const missing = APPS.filter((app) => !existsSync(join(ROOT, 'dist/apps', app, 'main.js')));
  if (missing.length)
    throw new Error(`not built: ${missing.join(', ')}; run npx nx run-many -t build -p ${APPS.join(' ')}`);
  const work = mkdtempSync(join(tmpdir(), 'gw-bench-media-'));
  const logDir = join(work, 'logs');
  mkdirSync(logDir);
  const ctx = {
    root: ROOT,
    work,
    logDir,
    catalogue: join(ROOT, 'config/catalogue.demo.json'),
    serverCpus: null,
    options: { rateLimits: false, databaseUrl: DATABASE_URL, natsUrl: null, replicas: 1 },
  };
  process.once('SIGINT', () => {
    log('interrupted');
    void stopRunning().finally(() => process.exit(130));
  });
  const began = performance.now();
  const load = loadavg()[0];
  try {
    const { idle, busy, createSeconds } = await pendingJobsCost(ctx);
    const rows = await throughput(ctx);
    console.log(
      `\nMedia service CPU, distributed mode, ${WINDOW_S} s windows (${JOBS} videos created in ${createSeconds.toFixed(1)} s):`,
    );
    console.table([
      {
        'pending videos': 0,
        'media CPU % of one core': idle.cpuPct.toFixed(2),
        'others %': idle.othersPct.toFixed(0),
      },
      {
        'pending videos': JOBS,
        'media CPU % of one core': busy.cpuPct.toFixed(2),
        'others %': busy.othersPct.toFixed(0),
      },
    ]);
    console.log(`\nEmbedded mode, ${DURATION_S} s per run, closed loop from Node:`);
    console.table(rows);
    console.log(
      `\n'others %': the machine's busy time not spent by the bench's own processes, in % of all cores. ` +
        `Load average ${load.toFixed(2)} at the start; ${((performance.now() - began) / 1000).toFixed(0)} s in all.`,
    );
    rmSync(work, { recursive: true, force: true });
  } catch (err) {
    console.error(`${err.message}\nlogs in ${logDir}`);
    process.exitCode = 1;
  }
}

await main();
