#!/usr/bin/env node
// Memory of a large upload: the resident set of each process idle, then sampled every 20 ms while a
// multipart body of --mb megabytes streams in (produced chunk by chunk, never held whole here either).
//   node tools/bench/upload-rss.mjs [--mb 50]
//       a PNG to POST /v1/storage/files on the built embedded app (gateway and storage in one process)
//   node tools/bench/upload-rss.mjs --transcription [--mb 25] [--modes embedded,distributed]
//       a WAV to POST /v1/audio/transcriptions: on the embedded app (one process), and in the distributed
//       mode with the gateway and inference measured apart (each app its own process, a private
//       nats-server with its default 1 MB max_payload, s3rver, a scratch database on DATABASE_URL's server)
// Build first: `npx nx build embedded`, and for the distributed mode
// `npx nx run-many -t build -p api-gateway auth billing inference media storage mock-upstream`.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portOpen, startProcess, waitUntil } from './lib/processes.mjs';
import { seedOrganization } from './lib/targets.mjs';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) =>
        arg.startsWith('--')
          ? [...pairs, [arg.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : 'true']]
          : pairs,
      [],
    ),
);
const TRANSCRIPTION = args.transcription === 'true';
/** 25 MB is the transcription limit; a few bytes under it. */
const BYTES = args.mb
  ? Number(args.mb) * 1024 * 1024 - (TRANSCRIPTION ? 1024 : 0)
  : TRANSCRIPTION
    ? 25 * 1024 * 1024 - 1024
    : 50 * 1024 * 1024;
const MODES = TRANSCRIPTION ? (args.modes ?? 'embedded,distributed').split(',') : ['embedded'];
const SERVICES = ['auth', 'billing', 'inference', 'media', 'storage'];
const ROOT = process.cwd();

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The file's first bytes: a PNG signature, or a WAV header for 16 kHz mono 16-bit PCM of the rest. */
function fileHead(bytes) {
  if (!TRANSCRIPTION) return Buffer.from('89504e470d0a1a0a', 'hex');
  const wav = Buffer.alloc(44);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(bytes - 8, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(16_000, 24);
  wav.writeUInt32LE(32_000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(bytes - 44, 40);
  return wav;
}

/** A multipart body with one file of `bytes`, produced chunk by chunk. */
function multipartFile(bytes, boundary) {
  const chunk = randomBytes(64 * 1024);
  const head = fileHead(bytes);
  const [field, value, filename, type] = TRANSCRIPTION
    ? ['response_format', 'verbose_json', 'long.wav', 'audio/wav']
    : ['storagePolicy', 'TEMP_UPLOAD', 'big.png', 'image/png'];
  let left = bytes - head.length;
  let stage = 'head';
  return new ReadableStream({
    pull(controller) {
      if (stage === 'head') {
        controller.enqueue(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
          ),
        );
        controller.enqueue(head);
        stage = 'body';
      } else if (left > 0) {
        const part = chunk.subarray(0, Math.min(chunk.length, left));
        left -= part.length;
        controller.enqueue(part);
      } else {
        controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
        controller.close();
      }
    },
  });
}

/** Sends the upload while sampling the RSS of `processes` ({ name: pid }); prints idle and peak of each. */
async function measure(mode, base, key, processes) {
  await sleep(3000);
  const idle = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, rssMb(pid)]));
  const peak = { ...idle };
  const sampler = setInterval(() => {
    for (const [name, pid] of Object.entries(processes)) peak[name] = Math.max(peak[name], rssMb(pid));
  }, 20);
  const boundary = `bench${Date.now()}`;
  const route = TRANSCRIPTION ? '/v1/audio/transcriptions' : '/v1/storage/files';
  const began = Date.now();
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipartFile(BYTES, boundary),
    duplex: 'half',
  });
  const answer = await response.json();
  // The answer has left; what the call still frees (the staged object, buffers) does not raise the peak.
  await sleep(500);
  clearInterval(sampler);
  const outcome = TRANSCRIPTION
    ? `${answer.usage?.durationSeconds ?? answer.error?.message} s of audio`
    : `size ${answer.size}`;
  console.log(
    `${mode}: POST ${route} of ${(BYTES / 1024 / 1024).toFixed(2)} MB: ${response.status} in ${Date.now() - began} ms, ${outcome}`,
  );
  console.table(
    Object.keys(processes).map((name) => ({
      process: name,
      'idle RSS (MB)': idle[name].toFixed(1),
      'peak RSS during the call (MB)': peak[name].toFixed(1),
      'growth (MB)': (peak[name] - idle[name]).toFixed(1),
    })),
  );
}

async function embedded(work) {
  const port = await freePort();
  const dataDir = join(work, 'embedded');
  mkdirSync(dataDir);
  // Enterable by others, so that as root the embedded PostgreSQL keeps its cluster inside it and is removed with it.
  chmodSync(dataDir, 0o755);
  const app = startProcess({
    name: 'embedded',
    command: process.execPath,
    args: [join(ROOT, 'dist/apps/embedded/main.js')],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    },
    logDir: work,
  });
  try {
    const [, key] = await waitUntil(
      'the embedded app',
      () =>
        /Demo API key\s+(\S+)[\s\S]*curl -s \S+\/v1\/history\/generations.*\n/.exec(
          readFileSync(app.logFile, 'utf8'),
        ),
      { alive: app.running, timeoutMs: 180_000 },
    );
    await measure('embedded', `http://127.0.0.1:${port}/api`, key, { embedded: app.pid });
  } finally {
    await app.stop();
  }
}

async function distributed(work) {
  const { Client } = require('pg');
  const S3rver = require('s3rver');
  const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const database = `bench_rss_${randomBytes(4).toString('hex')}`;
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
  const s3Port = await freePort();
  const s3Dir = join(work, 's3');
  mkdirSync(s3Dir);
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: s3Port,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'bench-rss' }],
  });
  await s3.run();
  await admin(`CREATE DATABASE "${database}"`);
  try {
    const natsPort = await freePort();
    const nats = startProcess({
      name: 'nats-server',
      command: process.env.NATS_SERVER_BIN ?? 'nats-server',
      args: ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(work, 'nats')],
      logDir: work,
    });
    started.push(nats);
    await waitUntil('nats-server', () => portOpen(natsPort), { alive: nats.running, timeoutMs: 10_000 });
    const mockPort = await freePort();
    const adminToken = `adm-${randomBytes(24).toString('hex')}`;
    const env = {
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      DATABASE_URL: databaseUrl.toString(),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      ADMIN_TOKEN: adminToken,
      MOCK_UPSTREAM_URL: `http://127.0.0.1:${mockPort}`,
      LOG_LEVEL: 'log',
      BLOB_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      S3_BUCKET: 'bench-rss',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const app = (name, extra = {}) => {
      const child = startProcess({
        name,
        command: process.execPath,
        args: [join(ROOT, 'dist/apps', name, 'main.js')],
        cwd: ROOT,
        env: { ...env, ...extra },
        logDir: work,
      });
      started.push(child);
      return child;
    };
    const serving = (child, pattern) =>
      waitUntil(child.name, () => pattern.test(readFileSync(child.logFile, 'utf8')), {
        alive: () => started.every((c) => c.running()),
        timeoutMs: 180_000,
      });
    await serving(app('mock-upstream', { PORT: String(mockPort) }), /listening/);
    const services = Object.fromEntries(SERVICES.map((name) => [name, app(name)]));
    for (const service of Object.values(services)) await serving(service, /serving on NATS/);
    const port = await freePort();
    const gateway = app('api-gateway', { PORT: String(port), HOST: '127.0.0.1' });
    await serving(gateway, /Gateway listening/);
    const base = `http://127.0.0.1:${port}/api`;
    const key = await waitUntil('seeding', () => seedOrganization(base, adminToken), { timeoutMs: 120_000 });
    await measure('distributed', base, key, {
      'api-gateway': gateway.pid,
      inference: services.inference.pid,
    });
  } finally {
    for (const child of started.reverse()) await child.stop();
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await s3.close();
  }
}

const work = mkdtempSync(join(tmpdir(), 'gw-rss-'));
chmodSync(work, 0o755);
try {
  for (const mode of MODES) await (mode === 'distributed' ? distributed(work) : embedded(work));
} finally {
  rmSync(work, { recursive: true, force: true });
}
