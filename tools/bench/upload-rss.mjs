#!/usr/bin/env node
// Memory of a large file upload: the resident set of the built embedded app (gateway and storage
// service in one process, so both are counted) while idle, then sampled every 20 ms during a
// streamed upload of --mb megabytes (default 50) to POST /v1/storage/files. Run
// `npx nx build embedded` first.
//   node tools/bench/upload-rss.mjs [--mb 50]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs),
      [],
    ),
);
const MEGABYTES = Number(args.mb ?? 50);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

function start(env) {
  const child = spawn(process.execPath, ['dist/apps/embedded/main.js'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(/Demo API key\s+(\S+)[\s\S]*curl -s \S+\/v1\/history\/generations.*\n/);
      if (match) resolve({ child, key: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => reject(new Error(`embedded exited:\n${output}`)));
  });
}

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

const dataDir = mkdtempSync(join(tmpdir(), 'gw-rss-'));
// Enterable by others, so that as root the embedded PostgreSQL keeps its cluster inside it and is removed with it.
chmodSync(dataDir, 0o755);
let child;
try {
  const port = await freePort();
  const started = await start({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  });
  child = started.child;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idle = rssMb(child.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid))), 20);
  const boundary = `bench${Date.now()}`;
  const began = Date.now();
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/storage/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${started.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    body: multipartPng(MEGABYTES, boundary),
    duplex: 'half',
  });
  const answer = await response.json();
  clearInterval(sampler);
  console.log(
    `POST /v1/storage/files of ${MEGABYTES} MB: ${response.status} in ${Date.now() - began} ms, size ${answer.size}`,
  );
  console.table([
    {
      'idle RSS (MB)': idle.toFixed(1),
      'peak RSS during upload (MB)': peak.toFixed(1),
      'growth (MB)': (peak - idle).toFixed(1),
    },
  ]);
} finally {
  child?.kill('SIGTERM');
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 1500);
}
