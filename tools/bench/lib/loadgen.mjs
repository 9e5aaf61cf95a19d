// The load generators: wrk for request/response load, the SSE probe for time to first byte. Both
// print one JSON line (parse.mjs reads it); both are bounded by a kill timer.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromProbe, fromWrk, parseResultLine } from './parse.mjs';

const SERVERS = join(dirname(fileURLToPath(import.meta.url)), '..', 'servers');

function run(command, args, env, boundSeconds) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundSeconds * 1000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

const pinned = (cpus, command, args) =>
  cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];

/** Runs wrk; resolves with the bench's result, or with `{ failed: output }`. */
export async function runWrk({ url, bodyFile, headers, connections, seconds, cpus }) {
  const [command, args] = pinned(cpus, 'wrk', [
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    join(SERVERS, 'wrk-post.lua'),
    url,
  ]);
  const output = await run(command, args, { WRK_BODY_FILE: bodyFile, WRK_HEADERS: headers }, seconds + 20);
  const raw = parseResultLine(output, 'WRKJSON');
  return raw ? fromWrk(raw) : { failed: output.slice(-500) };
}

/** Runs the SSE probe; resolves with the bench's result, or with `{ failed: output }`. */
export async function runProbe({ url, bodyFile, headers, connections, seconds, cpus }) {
  const [command, args] = pinned(cpus, process.execPath, [
    join(SERVERS, 'sse-probe.mjs'),
    '--url',
    url,
    '--body-file',
    bodyFile,
    '--headers',
    headers,
    '-c',
    String(connections),
    '-d',
    String(seconds),
  ]);
  const output = await run(command, args, {}, seconds + 20);
  const raw = parseResultLine(output, 'PROBEJSON');
  return raw ? fromProbe(raw) : { failed: output.slice(-500) };
}
