// Processes the bench starts: pinned with taskset (which execs, so the pid is the program's own),
// output to a log file, stopped by their own pid only.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `command args` on `cpus` (null: anywhere), output to `<logDir>/<name>.log`. The returned
 * handle knows whether it is still running and stops it with SIGTERM, then SIGKILL after 10 s.
 */
export function startProcess({ name, command, args, env = {}, cwd, cpus, logDir }) {
  const log = openSync(join(logDir, `${name}.log`), 'a');
  const [program, argv] = cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args];
  const child = spawn(program, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', log, log] });
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  return {
    name,
    pid: child.pid,
    logFile: join(logDir, `${name}.log`),
    running: () => !exited,
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}

/** Polls until `probe()` resolves truthy; throws with `what` after `timeoutMs`, or at once if `alive()` fails. */
export async function waitUntil(what, probe, { timeoutMs = 120_000, alive = () => true } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`${what}: the process exited`);
    try {
      const result = await probe();
      if (result) return result;
    } catch (err) {
      last = err;
    }
    await sleep(500);
  }
  throw new Error(`${what}: not ready in ${timeoutMs / 1000} s${last ? ` (${last.message})` : ''}`);
}

export async function httpAnswers(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.arrayBuffer();
  return response.status < 500;
}

export const portOpen = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
