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
// Build first: `npx nx run-many -t build -p embedded api-gateway auth billing inference media storage`.
//   node tools/bench/upload-rss.mjs [--mb 50] [--modes embedded,distributed] [--uploads 1]
//                                   [--database-url postgres://postgres@127.0.0.1:5432/postgres]
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/processes.mjs';
import { residentMbOf } from './lib/proc.mjs';
import { distributedTarget, embeddedTarget } from './lib/targets.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs),
      [],
    ),
);
const MEGABYTES = Number(args.mb ?? 50);
const MODES = (args.modes ?? 'embedded,distributed').split(',');
const UPLOADS = Number(args.uploads ?? 1);
/** The processes whose memory an upload could grow, by the name their target gives them. */
const WATCHED = {
  embedded: { node: 'embedded (gateway + storage)' },
  distributed: { 'api-gateway': 'gateway', storage: 'storage' },
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A multipart body with a PNG of `megabytes`, produced chunk by chunk (never held whole here either). */
function multipartPng(megabytes, boundary) {
  const chunk = randomBytes(64 * 1024);
  let left = megabytes * 1024 * 1024;
  let stage = 'head';
  return new ReadableStream({
    pull(controller) {
      if (stage === 'head') {
        controller.enqueue(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="storagePolicy"\r\n\r\nTEMP_UPLOAD\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
        );
        controller.enqueue(Buffer.from('89504e470d0a1a0a', 'hex'));
        left -= 8;
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
      S3_SECRET_ACCESS_KEY: 'S3RVER',
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
      const response = await fetch(`${target.base}/v1/storage/files`, {
        method: 'POST',
        headers: {
          authorization: target.headers.replace(/^Authorization:\s*/i, ''),
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        body: multipartPng(MEGABYTES, boundary),
        duplex: 'half',
      });
      const answer = await response.json();
      const took = Date.now() - began;
      clearInterval(sampler);
      console.log(
        `${mode}, upload ${upload}: POST /v1/storage/files of ${MEGABYTES} MB answered ${response.status} in ${took} ms, size ${answer.size}`,
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
try {
  const rows = [];
  for (const mode of MODES) {
    if (mode === 'distributed') s3 = await startS3(join(work, 's3'));
    const ctx = {
      root: ROOT,
      work,
      logDir,
      // No request reaches a provider; the bench catalogue only has to load.
      mockUrl: `http://127.0.0.1:${await freePort()}`,
      catalogue: join(ROOT, 'tools/bench/catalogue.bench.json'),
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
  if (!process.exitCode) rmSync(work, { recursive: true, force: true });
}
