#!/usr/bin/env node
// `npm run bench`: the gateway (embedded and distributed modes) beside the mock upstream alone and a
// raw Node proxy, on this machine, in one interleaved run. Targets are pinned to one core and the mock
// with the load generators to another; each target's CPU is that of its whole process tree, read from
// /proc. Prints a table and writes bench/results/<time>.json and .md. `--help` lists the options;
// docs/performance.md explains the method.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProbe, runWrk } from './lib/loadgen.mjs';
import { combineReplicas, splitConnections } from './lib/parse.mjs';
import { connectionsFor, parseOptions, USAGE } from './lib/options.mjs';
import {
  cpuSecondsBetween,
  HZ,
  machineBusyBetween,
  processTree,
  readCpuCores,
  privateMbOf,
  pssMbOf,
  pssOf,
  rssOf,
  snapshotProcesses,
} from './lib/proc.mjs';
import { freePort, httpAnswers, startProcess, waitUntil } from './lib/processes.mjs';
import {
  aggregate,
  checkTargets,
  formatMs,
  idealStreamsPerSecond,
  natsHop,
  renderReport,
} from './lib/summary.mjs';
import { directTarget, distributedTarget, embeddedTarget, portkeyTarget, rawTarget } from './lib/targets.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHAT_PATH = '/v1/chat/completions';
const PATHS = {
  chat: CHAT_PATH,
  stream: CHAT_PATH,
  ttfb: CHAT_PATH,
  long: CHAT_PATH,
  embed: '/v1/embeddings',
};
/** Scenarios measured with the SSE probe (concurrent streams) rather than wrk. */
const PROBED = new Set(['ttfb', 'long']);
const log = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

function requireWrk() {
  if (has('wrk')) return;
  if (process.getuid?.() === 0 && has('apt-get')) {
    log('wrk is missing: installing it with apt-get (Debian package wrk)');
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk'],
      {
        stdio: 'inherit',
      },
    );
    return;
  }
  throw new Error('wrk is missing: install it with `sudo apt-get install -y wrk` (or brew install wrk)');
}

function build(options) {
  const projects = [
    ...(options.modes.includes('embedded') ? ['embedded'] : []),
    ...(options.modes.includes('distributed')
      ? ['api-gateway', 'auth', 'billing', 'inference', 'media', 'storage']
      : []),
  ];
  if (!projects.length || !options.build) return;
  log(`building ${projects.join(', ')} (nx, cached when unchanged)`);
  const result = spawnSync(
    'npx',
    ['nx', 'run-many', '-t', 'build', '-p', ...projects, '--outputStyle=static'],
    {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (result.status !== 0)
    throw new Error(`the build failed:\n${(result.stdout + result.stderr).slice(-3000)}`);
}

/** Request bodies per target and scenario, written once: wrk and the probe read them from files. */
function writeBodies(work, target) {
  const messages = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Write one short sentence about the sea.' },
  ];
  const bodies = {
    chat: { model: target.models.chat, messages, max_tokens: 128 },
    stream: { model: target.models.chat, messages, max_tokens: 128, stream: true },
    ttfb: { model: target.models.paced, messages, max_tokens: 128, stream: true },
    long: { model: target.models.long, messages, max_tokens: 1024, stream: true },
    embed: {
      model: target.models.embed,
      input: 'The quick brown fox jumps over the lazy dog near the river bank.',
    },
  };
  target.bodies = {};
  for (const [scenario, body] of Object.entries(bodies)) {
    target.bodies[scenario] = join(work, `${target.name}-${scenario}.json`);
    writeFileSync(target.bodies[scenario], JSON.stringify(body));
  }
}

/** Each target must answer chat, a stream and embeddings with what the mock sent, before any load. */
async function verify(target, options) {
  const post = async (scenario) => {
    const headers = { 'content-type': 'application/json' };
    for (const header of target.headers.split('|')) {
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
    const response = await fetch(`${target.base}${PATHS[scenario]}`, {
      method: 'POST',
      headers,
      body: readFileSync(target.bodies[scenario]),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, text: await response.text() };
  };
  const chat = await post('chat');
  if (chat.status !== 200 || !chat.text.includes('gateway forwards'))
    throw new Error(`${target.name}: chat answered ${chat.status}: ${chat.text.slice(0, 300)}`);
  // A long answer takes its chunks × delay (4 s by default): checked only when it is measured.
  const streams = ['stream', 'ttfb', ...(options.scenarios.includes('long') ? ['long'] : [])];
  for (const scenario of streams) {
    const stream = await post(scenario);
    const frames = stream.text.split('\n').filter((line) => line.startsWith('data: {')).length;
    const least = scenario === 'long' ? options.longChunks : 20;
    if (stream.status !== 200 || !stream.text.includes('data: [DONE]') || frames < least)
      throw new Error(`${target.name}: ${scenario} answered ${stream.status}: ${stream.text.slice(0, 300)}`);
  }
  const embed = await post('embed');
  if (embed.status !== 200 || !embed.text.includes('"embedding"'))
    throw new Error(`${target.name}: embeddings answered ${embed.status}: ${embed.text.slice(0, 300)}`);
}

/** Loads the target; a target with replicas gets its connections split over them, loaded at once. */
async function load(ctx, target, scenario, connections, seconds) {
  const run = PROBED.has(scenario) ? runProbe : runWrk;
  const bases = target.bases ?? [target.base];
  const shares = splitConnections(connections, bases.length);
  const results = await Promise.all(
    shares.map((share, i) =>
      run({
        url: `${bases[i]}${PATHS[scenario]}`,
        bodyFile: target.bodies[scenario],
        headers: target.headers,
        connections: share,
        seconds,
        cpus: ctx.clientCpus,
      }),
    ),
  );
  return combineReplicas(results);
}

const selfTicks = (processes) => {
  const self = processes.get(process.pid);
  return { own: self.utime + self.stime, children: self.cutime + self.cstime };
};

/** One measurement: the load, and what it cost the target, the mock, the load generator and others. */
async function measure(ctx, target, scenario, connections, rep) {
  const extra = (await target.extraPids?.()) ?? [];
  const before = snapshotProcesses();
  const coresBefore = readCpuCores();
  // Memory, sampled each second and once at the end: the tree's RSS (shared pages counted in every
  // process that maps them), its PSS (each shared page divided among them: PostgreSQL's shared
  // buffers count once) and the PSS of each named process of the target; the maximum of each.
  let rssMax = 0;
  let pssMax = 0;
  let pssFallbacks = 0;
  const componentsPss = {};
  const sampleMemory = () => {
    const now = snapshotProcesses();
    const tree = new Set([...processTree(target.roots(), now), ...extra]);
    rssMax = Math.max(
      rssMax,
      rssOf(tree, now).reduce((sum, p) => sum + p.mb, 0),
    );
    const pss = pssOf(tree, now);
    pssMax = Math.max(pssMax, pss.total);
    pssFallbacks = Math.max(pssFallbacks, pss.fallbacks);
    if (!target.components) return;
    const byPid = new Map(pss.each.map(({ pid, mb }) => [pid, mb]));
    for (const { name, pids } of target.components(tree, extra)) {
      const mb = pids.reduce((sum, pid) => sum + (byPid.get(pid) ?? 0), 0);
      componentsPss[name] = Math.max(componentsPss[name] ?? 0, mb);
    }
  };
  const sampler = setInterval(sampleMemory, 1000);
  const seconds = scenario === 'long' ? ctx.options.longDuration : ctx.options.duration;
  const result = await load(ctx, target, scenario, connections, seconds);
  clearInterval(sampler);
  sampleMemory();
  const after = snapshotProcesses();
  const coresAfter = readCpuCores();
  const tree = new Set([...processTree(target.roots(), after), ...extra]);
  const cpu = cpuSecondsBetween(before, after, tree);
  const mockCpu = target.sameAsMock
    ? 0
    : cpuSecondsBetween(before, after, processTree([ctx.mock.pid], after));
  const [self0, self1] = [selfTicks(before), selfTicks(after)];
  const loadgenCpu = (self1.children - self0.children) / HZ;
  const benchCpu = (self1.own - self0.own) / HZ;
  const machine = machineBusyBetween(coresBefore, coresAfter);
  const foreign = Math.max(0, machine.busySeconds - cpu - mockCpu - loadgenCpu - benchCpu);
  const record = {
    target: target.name,
    scenario,
    connections,
    rep,
    ...result,
    cpu_s: cpu,
    mock_cpu_s: mockCpu,
    loadgen_cpu_s: loadgenCpu,
    cpu_ms_per_req: result.requests ? (cpu * 1000) / result.requests : null,
    foreign_pct: machine.wallSeconds ? (100 * foreign) / (machine.wallSeconds * coresAfter.length) : null,
    rss_max_mb: rssMax,
    pss_max_mb: pssMax,
    pss_fallbacks: pssFallbacks,
    ...(target.components ? { components_pss_mb: componentsPss } : {}),
    ...(scenario === 'long' && result.rps !== undefined
      ? {
          pace:
            result.rps / idealStreamsPerSecond(connections, ctx.options.longChunks, ctx.options.longDelayMs),
        }
      : {}),
  };
  if (target.components && result.requests) {
    record.components_ms_per_req = Object.fromEntries(
      target
        .components(tree, extra)
        .map(({ name, pids }) => [name, (cpuSecondsBetween(before, after, pids) * 1000) / result.requests]),
    );
  }
  const shown = result.failed
    ? `FAILED: ${result.failed.trim().split('\n').pop()}`
    : `${Math.round(result.rps)} req/s, p50 ${formatMs(result.p50_ms)} ms, CPU ${formatMs(record.cpu_ms_per_req)} ms/req, ` +
      `errors ${result.errors + result.stalls}, PSS ${Math.round(pssMax)} MB, foreign ${formatMs(record.foreign_pct)} %` +
      (record.pace === undefined
        ? ''
        : `, total p50 ${formatMs(result.total_p50_ms)} ms, pace ${record.pace.toFixed(2)}`);
  log(
    `rep ${rep} ${scenario.padEnd(6)} c=${String(connections).padEnd(3)} ${target.name.padEnd(11)} ${shown}`,
  );
  return record;
}

/** A bounded soak at 32 connections: RSS, PSS and private memory of every process of the target at the start and the end. */
async function soak(ctx, target) {
  const seconds = ctx.options.soak;
  const extra = (await target.extraPids?.()) ?? [];
  const names = new Map();
  const samples = new Map();
  const sample = () => {
    const now = snapshotProcesses();
    const tree = new Set([...processTree(target.roots(), now), ...extra]);
    for (const { name, pids } of target.components?.(tree, extra) ?? [])
      for (const pid of pids) names.set(pid, name);
    for (const { pid, comm, mb } of rssOf(tree, now)) {
      const privateMb = privateMbOf(pid);
      if (privateMb === null) continue;
      if (!samples.has(pid)) samples.set(pid, { comm, values: [] });
      samples.get(pid).values.push({ rss: mb, pss: pssMbOf(pid), private: privateMb });
    }
  };
  log(`soak ${target.name}: ${seconds} s of chat at 32 connections`);
  sample();
  const sampler = setInterval(sample, Math.max(1000, Math.min(5000, (seconds * 1000) / 20)));
  const result = await load(ctx, target, 'chat', 32, seconds);
  clearInterval(sampler);
  sample();
  // The first tenth of the soak lets heaps and caches settle; growth after that is what counts. The
  // judged figure is private memory: a PostgreSQL backend's RSS also grows as it touches shared buffers.
  const processes = [...samples.entries()]
    .filter(([, { values }]) => values.length >= 3)
    .map(([pid, { comm, values }]) => {
      const start = values[Math.floor(values.length / 10)];
      const end = values[values.length - 1];
      return {
        pid,
        name: names.get(pid) ?? comm,
        start_mb: start.rss,
        end_mb: end.rss,
        start_pss_mb: start.pss,
        end_pss_mb: end.pss,
        start_private_mb: start.private,
        end_private_mb: end.private,
        change_pct: start.private ? (100 * (end.private - start.private)) / start.private : 0,
      };
    });
  return {
    target: target.name,
    seconds,
    rps: result.rps ?? null,
    errors: result.failed ? 'failed' : result.errors,
    processes,
  };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) return void process.stdout.write(USAGE);
  if (options.suite === 'history') {
    const child = spawn(process.execPath, [join(ROOT, 'tools/bench/history-bench.mjs'), ...options.rest], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    process.exitCode = await new Promise((done) => child.on('exit', (code) => done(code ?? 1)));
    return;
  }
  requireWrk();
  if (
    options.modes.includes('distributed') &&
    !options.natsUrl &&
    !has(process.env.NATS_SERVER_BIN ?? 'nats-server')
  )
    throw new Error(
      'nats-server is missing for the distributed mode: install it (apt-get install -y nats-server) or pass --nats-url',
    );
  build(options);

  const pin = options.pin && cpus().length >= 2 && has('taskset');
  const work = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const logDir = join(work, 'logs');
  mkdirSync(logDir);
  const ctx = {
    root: ROOT,
    work,
    logDir,
    options,
    catalogue: join(ROOT, 'tools/bench/catalogue.bench.json'),
    serverCpus: pin ? options.serverCpus : null,
    clientCpus: pin ? options.clientCpus : null,
  };
  const targets = [];
  const stopAll = async () => {
    for (const target of targets.reverse())
      await target.stop().catch((err) => log(`stopping ${target.name}: ${err.message}`));
    await ctx.mock?.stop();
  };
  process.once('SIGINT', () => {
    log('interrupted: stopping what the bench started');
    void stopAll().finally(() => process.exit(130));
  });
  const startedAt = new Date();
  const loadStart = loadavg()[0];
  try {
    const mockPort = await freePort();
    ctx.mock = startProcess({
      name: 'mock-upstream',
      command: process.execPath,
      args: [
        join(ROOT, 'tools/bench/servers/mock-upstream.mjs'),
        '--port',
        String(mockPort),
        '--long-chunks',
        String(options.longChunks),
        '--long-delay-ms',
        String(options.longDelayMs),
      ],
      cpus: ctx.clientCpus,
      logDir,
    });
    ctx.mockUrl = `http://127.0.0.1:${mockPort}`;
    ctx.mockProcess = ctx.mock;
    await waitUntil('bench mock', () => httpAnswers(`${ctx.mockUrl}/health`), { alive: ctx.mock.running });

    targets.push(directTarget(ctx), await rawTarget(ctx));
    if (options.portkey) targets.push(await portkeyTarget(ctx, options.portkey));
    for (const mode of options.modes) {
      log(`starting the ${mode} mode`);
      targets.push(await (mode === 'embedded' ? embeddedTarget(ctx) : distributedTarget(ctx)));
    }
    for (const target of targets) {
      writeBodies(work, target);
      await verify(target, options);
    }
    log(`targets answer through the mock: ${targets.map((t) => t.name).join(', ')}; logs in ${logDir}`);

    const requestScenarios = ['chat', 'stream', 'embed'].filter((s) => options.scenarios.includes(s));
    const plan = [
      ...requestScenarios.flatMap((scenario) => connectionsFor(options, scenario).map((c) => [scenario, c])),
      ...(options.scenarios.includes('ttfb') ? options.streams.map((c) => ['ttfb', c]) : []),
      ...(options.scenarios.includes('long') ? options.longStreams.map((c) => ['long', c]) : []),
    ];
    const probedScenarios = ['ttfb', 'long'].filter((s) => options.scenarios.includes(s));
    if (options.warmup > 0) {
      log(`warm-up: ${options.warmup} s per target and scenario`);
      for (const target of targets)
        for (const scenario of [...requestScenarios, ...probedScenarios])
          await load(ctx, target, scenario, 32, options.warmup);
    }
    const runs = [];
    for (let rep = 1; rep <= options.reps; rep++) {
      const shift = (rep - 1) % targets.length;
      const order = [...targets.slice(shift), ...targets.slice(0, shift)];
      for (const [scenario, connections] of plan)
        for (const target of order) runs.push(await measure(ctx, target, scenario, connections, rep));
    }
    const soaks = [];
    if (options.soak > 0)
      for (const target of targets.filter((t) => t.kind === 'gateway')) soaks.push(await soak(ctx, target));

    const gatewayNames = targets.filter((t) => t.kind === 'gateway').map((t) => t.name);
    const rows = aggregate(
      runs,
      targets.map((t) => t.name),
    );
    const meta = {
      date: startedAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim(),
      host: hostname(),
      cores: cpus().length,
      node: process.version,
      wrk: spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0].split(' [')[0],
      pin: pin
        ? `Targets on core(s) ${options.serverCpus}, mock and load generators on ${options.clientCpus}`
        : 'Not pinned',
      rateLimits: options.rateLimits ? 'on, out of reach' : 'off',
      replicas: options.replicas,
      duration: options.duration,
      ...(options.scenarios.includes('long')
        ? {
            long: {
              chunks: options.longChunks,
              delayMs: options.longDelayMs,
              duration: options.longDuration,
            },
          }
        : {}),
      reps: options.reps,
      loadavg: [loadStart, loadavg()[0]],
    };
    const checks = checkTargets(rows, gatewayNames, soaks);
    const hop = natsHop(rows);
    const report = renderReport({ meta, rows, checks, hop, soaks });
    process.stdout.write(`\n${report}\n`);
    const out = resolve(ROOT, options.out);
    mkdirSync(out, { recursive: true });
    const stamp = startedAt.toISOString().slice(0, 19).replace(/:/g, '-');
    writeFileSync(
      join(out, `${stamp}.json`),
      JSON.stringify({ meta, options, runs, rows, checks, hop, soaks }, null, 2),
    );
    writeFileSync(join(out, `${stamp}.md`), report);
    log(`results: ${join(options.out, stamp)}.json and .md`);
    await stopAll();
    rmSync(work, { recursive: true, force: true });
  } catch (err) {
    await stopAll();
    log(`logs of the processes kept in ${logDir}`);
    throw err;
  }
}

main().catch((err) => {
  log(err.message);
  process.exitCode = 1;
});
