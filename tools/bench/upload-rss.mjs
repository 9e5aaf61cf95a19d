#!/usr/bin/env node
// Memory of a large file upload: the resident set of each process that a streamed multipart upload
// of --mb megabytes (default 50) to POST /v1/storage/files passes through, idle before the first
// upload, at its peak during each (sampled every 20 ms) and 2 s after each answer, in either mode
// of lib/targets.mjs:
//   embedded     one process, gateway and storage service together (so both are counted), local-disk store
//   distributed  the gateway and the storage service as processes of their own (with the other
//                services) over a private nats-server and a scratch database on --database-url's
//                server, S3 from an s3rver started here
// --uploads N uploads one after another, to tell a first upload's one-time costs from what each costs.
// --transcription sends a WAV of 25 MB less 1 KB (--mb sets another size) to POST /v1/audio/transcriptions
// instead, watching the gateway and inference in the distributed mode, with the demo catalogue and
// mock-upstream as the provider; the private nats-server keeps its default 1 MB max_payload, so the audio
// can only cross as a blob-store key (claim check).
// Build first: `npx nx run-many -t build -p embedded api-gateway auth billing inference media storage mock-upstream`.
//   node tools/bench/upload-rss.mjs [--mb 50] [--modes embedded,distributed] [--uploads 1] [--transcription]
//                                   [--database-url postgres://postgres@127.0.0.1:5432/postgres]
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitUntil, httpAnswers } from './lib/processes.mjs';
import { residentMbOf } from './lib/proc.mjs';
import { distributedTarget, embeddedTarget } from './lib/targets.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) =>
        arg.startsWith('--')
          ? [...pairs, [arg.slice(2), all[i + 1]?.startsWith('--') === false ? all[i + 1] : 'true']]
          : pairs,
      [],
    ),
);
const TRANSCRIPTION = args.transcription === 'true';
/** The file's size: 25 MB is the transcription limit, so a little under it by default. */
const BYTES = args.mb
  ? Number(args.mb) * 1024 * 1024
  : TRANSCRIPTION
    ? 25 * 1024 * 1024 - 1024
    : 50 * 1024 * 1024;
const MODES = (args.modes ?? 'embedded,distributed').split(',');
const UPLOADS = Number(args.uploads ?? 1);
/** The processes whose memory an upload could grow, by the name their target gives them. */
const WATCHED = TRANSCRIPTION
  ? {
      embedded: { node: 'embedded (gateway + inference + mock-upstream)' },
      distributed: { 'api-gateway': 'gateway', inference: 'inference' },
    }
  : {
      embedded: { node: 'embedded (gateway + storage)' },
      distributed: { 'api-gateway': 'gateway', storage: 'storage' },
    };
const ROUTE = TRANSCRIPTION ? '/v1/audio/transcriptions' : '/v1/storage/files';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** 16 kHz mono 16-bit PCM: the header of a WAV file of `bytes` in all. */
function wavHeader(bytes) {
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

/**
 * A multipart body with one file of `bytes` (a PNG to store, or a WAV to transcribe) and one field,
 * produced chunk by chunk (never held whole here either).
 */
function multipartFile(bytes, boundary) {
  const chunk = randomBytes(64 * 1024);
  const [field, value, filename, type, head] = TRANSCRIPTION
    ? ['response_format', 'verbose_json', 'long.wav', 'audio/wav', wavHeader(bytes)]
    : ['storagePolicy', 'TEMP_UPLOAD', 'big.png', 'image/png', Buffer.from('89504e470d0a1a0a', 'hex')];
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

/** mock-upstream, the provider of the demo catalogue's transcription models. */
async function startMockUpstream(logDir) {
  const port = await freePort();
  const mock = startProcess({
    name: 'mock-upstream',
    command: process.execPath,
    args: [join(ROOT, 'dist/apps/mock-upstream/main.js')],
    cwd: ROOT,
    env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    logDir,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil('mock-upstream', () => httpAnswers(url), { alive: mock.running, timeoutMs: 60_000 });
  return { url, stop: () => mock.stop() };
}

/** An S3 server for the distributed mode; its data lives under `directory`. */
async function startS3(directory) {
  const S3rver = require('s3rver');
  const port = await freePort();
  const bucket = 'upload-rss';
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  await server.run();
  return {
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      // s3rver knows the key id S3RVER and does not check SigV4 signatures; the apps refuse a secret
      // key shorter than 16 characters.
      S3_SECRET_ACCESS_KEY: 'S3RVER-bench-secret-key',
      S3_FORCE_PATH_STYLE: 'true',
    },
    stop: () => server.close(),
  };
}

async function measure(mode, ctx) {
  const target = await (mode === 'embedded' ? embeddedTarget(ctx) : distributedTarget(ctx));
  try {
    const watched = target
      .components(new Set(), [])
      .filter((component) => WATCHED[mode][component.name])
      .map((component) => ({ label: WATCHED[mode][component.name], pid: component.pids[0] }));
    await sleep(3000);
    for (const entry of watched) entry.idle = residentMbOf(entry.pid);
    const rows = [];
    for (let upload = 1; upload <= UPLOADS; upload++) {
      for (const entry of watched) entry.peak = residentMbOf(entry.pid);
      const sampler = setInterval(() => {
        for (const entry of watched) entry.peak = Math.max(entry.peak, residentMbOf(entry.pid) ?? 0);
      }, 20);
      const boundary = `bench${Date.now()}`;
      const began = Date.now();
      const response = await fetch(`${target.base}${ROUTE}`, {
        method: 'POST',
        headers: {
          authorization: target.headers.replace(/^Authorization:\s*/i, ''),
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        body: multipartFile(BYTES, boundary),
        duplex: 'half',
      });
      const answer = await response.json();
      const took = Date.now() - began;
      clearInterval(sampler);
      const outcome = TRANSCRIPTION
        ? `${answer.usage?.durationSeconds ?? answer.error?.message} s of audio`
        : `size ${answer.size}`;
      console.log(
        `${mode}, upload ${upload}: POST ${ROUTE} of ${(BYTES / 1024 / 1024).toFixed(2)} MB answered ${response.status} in ${took} ms, ${outcome}`,
      );
      await sleep(2000);
      for (const entry of watched)
        rows.push({
          mode,
          process: entry.label,
          upload,
          'idle RSS (MB)': entry.idle.toFixed(1),
          'peak RSS (MB)': entry.peak.toFixed(1),
          'peak - idle (MB)': (entry.peak - entry.idle).toFixed(1),
          'RSS 2 s after (MB)': residentMbOf(entry.pid).toFixed(1),
        });
    }
    return rows;
  } finally {
    await target.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'gw-rss-'));
const logDir = join(work, 'logs');
mkdirSync(logDir);
let s3;
let mock;
try {
  if (TRANSCRIPTION) mock = await startMockUpstream(logDir);
  const rows = [];
  for (const mode of MODES) {
    if (mode === 'distributed') s3 = await startS3(join(work, 's3'));
    const ctx = {
      root: ROOT,
      work,
      logDir,
      // Uploads reach no provider, so the bench catalogue only has to load; transcriptions reach mock-upstream.
      mockUrl: mock?.url ?? `http://127.0.0.1:${await freePort()}`,
      catalogue: join(
        ROOT,
        TRANSCRIPTION ? 'config/catalogue.demo.json' : 'tools/bench/catalogue.bench.json',
      ),
      serverCpus: null,
      options: {
        rateLimits: false,
        databaseUrl: args['database-url'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        natsUrl: null,
        replicas: 1,
      },
      env: mode === 'distributed' ? s3.env : {},
    };
    rows.push(...(await measure(mode, ctx)));
  }
  console.table(rows);
} catch (err) {
  console.error(`${err.message}\nlogs in ${logDir}`);
  process.exitCode = 1;
} finally {
  await s3?.stop();
  await mock?.stop();
  if (!process.exitCode) rmSync(work, { recursive: true, force: true });
}
