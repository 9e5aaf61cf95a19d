// The targets under load, all answering through the same bench mock:
//   direct       the mock itself: the limit
//   raw          servers/raw-proxy.mjs: the floor for any Node gateway
//   portkey      Portkey's open-source gateway, when --portkey names an install
//   embedded     this gateway, one process with its embedded PostgreSQL (dist/apps/embedded)
//   distributed  this gateway, every service its own process, over a private nats-server (or
//                --nats-url) and a database of its own on the machine's PostgreSQL
// A target tells where to send requests, with which models and headers, and which processes are
// its own (roots and their descendants, plus PostgreSQL backends serving its database).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { freePort, httpAnswers, portOpen, startProcess, waitUntil } from './processes.mjs';

const require = createRequire(import.meta.url);
const BALANCE_RUB = '10000000.00';
const SERVICES = ['auth', 'billing', 'inference', 'media', 'storage'];
const UPSTREAM_MODELS = {
  chat: 'gpt-4o-mini',
  paced: 'gpt-4o-mini-paced',
  long: 'gpt-4o-mini-long',
  embed: 'text-embedding-3-small',
};
const GATEWAY_MODELS = {
  chat: 'openai/gpt-4o-mini',
  paced: 'bench/chat-paced',
  long: 'bench/chat-long',
  embed: 'openai/text-embedding-3-small',
};
/** Off (0), or on with limits no run reaches, so that the limiter's own cost is measured. */
const rateLimits = (on) => ({
  RATE_LIMIT_RPM_PER_KEY: on ? '1000000000' : '0',
  RATE_LIMIT_CONCURRENT_PER_KEY: on ? '1000000' : '0',
  RATE_LIMIT_RPM_PER_ORGANIZATION: on ? '1000000000' : '0',
  RATE_LIMIT_CONCURRENT_PER_ORGANIZATION: on ? '1000000' : '0',
});

/**
 * `ctx`: { root, work, logDir, mockUrl, mockProcess, catalogue, serverCpus, options, env? }; `env`
 * adds to the environment of every process of either gateway mode.
 */

export function directTarget(ctx) {
  return {
    name: 'direct',
    kind: 'baseline',
    base: ctx.mockUrl,
    headers: 'Authorization: Bearer sk-bench',
    models: UPSTREAM_MODELS,
    roots: () => [ctx.mockProcess.pid],
    sameAsMock: true,
    stop: async () => {},
  };
}

export async function rawTarget(ctx) {
  const port = await freePort();
  const proxy = startProcess({
    name: 'raw-proxy',
    command: process.execPath,
    args: [
      join(ctx.root, 'tools/bench/servers/raw-proxy.mjs'),
      '--port',
      String(port),
      '--upstream',
      ctx.mockUrl,
    ],
    cpus: ctx.serverCpus,
    logDir: ctx.logDir,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitUntil('raw proxy', () => httpAnswers(`${base}/health`), { alive: proxy.running });
  return {
    name: 'raw',
    kind: 'baseline',
    base,
    headers: 'Authorization: Bearer sk-bench',
    models: UPSTREAM_MODELS,
    roots: () => [proxy.pid],
    stop: () => proxy.stop(),
  };
}

export async function portkeyTarget(ctx, dir) {
  const server = join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(server))
    throw new Error(`--portkey: no ${server} (../shared/bench/install-portkey.sh installs it)`);
  const port = await freePort();
  const portkey = startProcess({
    name: 'portkey',
    command: process.execPath,
    args: [server, `--port=${port}`, '--headless'],
    cpus: ctx.serverCpus,
    logDir: ctx.logDir,
  });
  const base = `http://127.0.0.1:${port}`;
  await waitUntil('portkey', () => httpAnswers(base), { alive: portkey.running });
  return {
    name: 'portkey',
    kind: 'portkey',
    base,
    headers: `Authorization: Bearer sk-bench|x-portkey-provider: openai|x-portkey-custom-host: ${ctx.mockUrl}/v1`,
    models: UPSTREAM_MODELS,
    roots: () => [portkey.pid],
    stop: () => portkey.stop(),
  };
}

/** The environment both gateway modes share: the bench catalogue on the bench mock, rate limits out of the way. */
const gatewayEnv = (ctx, adminToken) => ({
  ADMIN_TOKEN: adminToken,
  CATALOGUE_FILE: ctx.catalogue,
  BENCH_MOCK_URL: ctx.mockUrl,
  BENCH_MOCK_API_KEY: 'sk-bench',
  LOG_LEVEL: 'warn',
  LOG_FORMAT: 'json',
  NODE_ENV: 'production',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...rateLimits(ctx.options.rateLimits),
  ...ctx.env,
});

export async function embeddedTarget(ctx) {
  const dataDir = join(ctx.work, 'embedded-data');
  mkdirSync(dataDir, { recursive: true });
  // Enterable by others, so that as root the embedded PostgreSQL keeps its cluster inside it.
  chmodSync(ctx.work, 0o755);
  chmodSync(dataDir, 0o755);
  const adminToken = `adm-${randomBytes(24).toString('hex')}`;
  const port = await freePort();
  const gateway = startProcess({
    name: 'embedded',
    command: process.execPath,
    args: [join(ctx.root, 'dist/apps/embedded/main.js')],
    cwd: ctx.root,
    env: {
      ...gatewayEnv(ctx, adminToken),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
    },
    cpus: ctx.serverCpus,
    logDir: ctx.logDir,
  });
  const base = `http://127.0.0.1:${port}/api`;
  await waitUntil('embedded gateway', () => httpAnswers(`${base}/v1/models`), {
    alive: gateway.running,
    timeoutMs: 180_000,
  });
  const key = await waitUntil('seeding the embedded mode', () => seedOrganization(base, adminToken), {
    alive: gateway.running,
    timeoutMs: 180_000,
  });
  return {
    name: 'embedded',
    kind: 'gateway',
    base,
    headers: `Authorization: Bearer ${key}`,
    models: GATEWAY_MODELS,
    roots: () => [gateway.pid],
    components: (tree) => [
      { name: 'node', pids: [gateway.pid] },
      { name: 'postgres', pids: [...tree].filter((pid) => pid !== gateway.pid) },
    ],
    stop: async () => {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function distributedTarget(ctx) {
  const { Client } = require('pg');
  const adminToken = `adm-${randomBytes(24).toString('hex')}`;
  const database = `bench_gw_${randomBytes(4).toString('hex')}`;
  const serverUrl = new URL(ctx.options.databaseUrl);
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${database}`;
  const admin = async (sql) => {
    const client = new Client({ connectionString: serverUrl.toString() });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const started = [];
  let natsUrl = ctx.options.natsUrl;
  const natsStore = join(ctx.work, 'nats');
  const stop = async () => {
    for (const child of started.reverse()) await child.stop();
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    rmSync(natsStore, { recursive: true, force: true });
  };
  await admin(`CREATE DATABASE "${database}"`);
  try {
    if (!natsUrl) {
      const port = await freePort();
      const nats = startProcess({
        name: 'nats-server',
        command: process.env.NATS_SERVER_BIN ?? 'nats-server',
        args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', natsStore],
        cpus: ctx.serverCpus,
        logDir: ctx.logDir,
      });
      started.push(nats);
      natsUrl = `nats://127.0.0.1:${port}`;
      await waitUntil('nats-server', () => portOpen(port), { alive: nats.running, timeoutMs: 10_000 });
    }
    const env = {
      ...gatewayEnv(ctx, adminToken),
      // Nothing logs per request at 'log'; it is the level at which each process says it serves.
      LOG_LEVEL: 'log',
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl.toString(),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      MOCK_UPSTREAM_URL: ctx.mockUrl,
    };
    const replicas = ctx.options.replicas;
    const app = (name, replica, extra = {}) => {
      const child = startProcess({
        name: replicas > 1 ? `${name}-${replica + 1}` : name,
        command: process.execPath,
        args: [join(ctx.root, 'dist/apps', name, 'main.js')],
        cwd: ctx.root,
        env: { ...env, ...extra },
        cpus: ctx.serverCpus,
        logDir: ctx.logDir,
      });
      started.push(child);
      return child;
    };
    const allRunning = () => started.every((child) => child.running());
    const serving = (children, pattern) =>
      Promise.all(
        children.map((child) =>
          waitUntil(child.name, () => pattern.test(readFileSync(child.logFile, 'utf8')), {
            alive: allRunning,
            timeoutMs: 180_000,
          }),
        ),
      );
    // The first replica of each service migrates its schema; the others start on a migrated database.
    // One replica at a time: a dozen processes starting at once on one busy core can miss NATS's
    // connect timeout.
    const services = [];
    for (let replica = 0; replica < replicas; replica++) {
      const batch = SERVICES.map((name) => app(name, replica));
      await serving(batch, /serving on NATS/);
      services.push(...batch);
    }
    const gateways = [];
    const bases = [];
    for (let replica = 0; replica < replicas; replica++) {
      const port = await freePort();
      const gateway = app('api-gateway', replica, { PORT: String(port), HOST: '127.0.0.1' });
      await serving([gateway], /Gateway listening/);
      gateways.push(gateway);
      bases.push(`http://127.0.0.1:${port}/api`);
    }
    // On a busy machine the first calls can outlast the gateway's RPC timeout; a retry makes a new organization.
    const key = await waitUntil(
      'seeding the distributed mode',
      () => seedOrganization(bases[0], adminToken),
      {
        alive: allRunning,
        timeoutMs: 180_000,
      },
    );
    const backends = async () => {
      const result = await admin(
        `SELECT pid FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
      );
      const pids = result.rows.map((row) => row.pid);
      // The backends are this target's own; they run where its processes run.
      if (ctx.serverCpus)
        for (const pid of pids)
          execFileSync('taskset', ['-a', '-p', '-c', ctx.serverCpus, String(pid)], { stdio: 'ignore' });
      return pids;
    };
    const named = [...gateways, ...services, ...started.filter((child) => child.name === 'nats-server')];
    return {
      name: 'distributed',
      kind: 'gateway',
      base: bases[0],
      bases,
      headers: `Authorization: Bearer ${key}`,
      models: GATEWAY_MODELS,
      roots: () => named.map((child) => child.pid),
      extraPids: backends,
      components: (tree, extra) => [
        ...named.map((child) => ({ name: child.name, pids: [child.pid] })),
        { name: 'postgres', pids: extra },
      ],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * An organization with a balance no run can spend and an API key, through the operator API as an
 * operator would (DESIGN.md §4). Returns the key, or throws while the services are not all up.
 */
export async function seedOrganization(base, adminToken) {
  const call = async (method, path, body, headers = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const suffix = randomBytes(4).toString('hex');
  const organization = await call('POST', '/admin/organizations', { name: `bench ${suffix}` });
  const user = await call('POST', '/admin/users', {
    email: `bench-${suffix}@bench.local`,
    password: `bench-${randomBytes(12).toString('hex')}`,
    name: 'bench',
  });
  await call('PUT', `/admin/organizations/${organization.id}/members/${user.id}`, { role: 'admin' });
  const { key } = await call('POST', `/admin/organizations/${organization.id}/api-keys`, {
    name: 'bench',
    userId: user.id,
  });
  await call(
    'POST',
    `/admin/organizations/${organization.id}/credits`,
    { amount: BALANCE_RUB, reason: 'bench' },
    { 'idempotency-key': `bench-${organization.id}` },
  );
  return key;
}
