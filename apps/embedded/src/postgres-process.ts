import { type ChildProcess, spawn } from 'node:child_process';
import type { PostgresUser } from './postgres-user';

/** PostgreSQL's messages in English whatever the machine's locale, so they can be read and shown. */
const ENV = { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' };

/** A port already in use, found when the server could not bind it. */
export class PortTakenError extends Error {}

/** Runs initdb (or another PostgreSQL tool) to its end as `user`; rejects with its last lines. */
export function runTool(binary: string, args: string[], user: PostgresUser | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...user, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(lastLines(output) || `exit ${signal ?? code}`)),
    );
  });
}

export interface PostgresServer {
  stop(): Promise<void>;
}

/**
 * The embedded cluster's shared buffers: PostgreSQL's 128 MB default was a third of the embedded
 * mode's memory under load, for a database whose working set of a demo or a small team fits in far
 * less; the operating system's page cache still holds the rest (decision 190).
 */
const SHARED_BUFFERS = '32MB';

/**
 * Starts `postgres` on 127.0.0.1:`port` only (no Unix socket) and resolves once it accepts
 * connections. Its log is read for as long as it runs, so it never blocks on a full pipe; it is
 * stopped when this process exits, however that happens.
 */
export function startServer(
  binary: string,
  directory: string,
  port: number,
  user: PostgresUser | null,
  onUnexpectedExit: (message: string) => void,
): Promise<PostgresServer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      binary,
      [
        '-D',
        directory,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        `shared_buffers=${SHARED_BUFFERS}`,
      ],
      { ...user, env: ENV, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let output = '';
    let ready = false;
    let stopping = false;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const killOnExit = () => child.kill('SIGINT');
    child.stderr?.on('data', (chunk: Buffer) => {
      if (ready) return;
      output = (output + chunk.toString()).slice(-8000);
      if (!output.includes('database system is ready to accept connections')) return;
      ready = true;
      process.once('exit', killOnExit);
      resolve({
        stop: async () => {
          stopping = true;
          process.removeListener('exit', killOnExit);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
          await exited;
        },
      });
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.removeListener('exit', killOnExit);
      if (ready) {
        if (!stopping) onUnexpectedExit(`PostgreSQL exited unexpectedly (${signal ?? code})`);
        return;
      }
      if (output.includes('Address already in use'))
        return reject(new PortTakenError(`port ${port} is in use`));
      reject(new Error(fatalLines(output) || `exit ${signal ?? code}`));
    });
  });
}

/** PostgreSQL's FATAL/PANIC lines, or its last lines when it printed none. */
function fatalLines(output: string): string {
  const fatal = output
    .split('\n')
    .filter((line) => /\b(FATAL|PANIC):/.test(line))
    .map((line) => line.replace(/^.*?\b(FATAL|PANIC):\s*/, ''));
  return fatal.length > 0 ? fatal.join('; ') : lastLines(output);
}

function lastLines(output: string): string {
  return output.trim().split('\n').slice(-3).join(' ').trim();
}
