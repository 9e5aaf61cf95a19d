import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface TestNats {
  url: string;
  /** Stops the server and starts it again on the same port and store, as a broker restart does. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const NATS_SERVER_BIN = process.env['NATS_SERVER_BIN'] ?? 'nats-server';

export interface TestNatsOptions {
  /** A server config file (`-c`), e.g. the generated users and permissions of deploy/nats. */
  configFile?: string;
  /** Variables the config file refers to (`$NAME`), such as the users' passwords. */
  env?: Record<string, string>;
}

/**
 * A private nats-server with JetStream for one test file. Subjects are fixed by the contracts, so
 * test files sharing one broker would answer each other's requests; a broker per file keeps them
 * apart while still testing against the real NATS server.
 */
export async function startTestNats(options: TestNatsOptions = {}): Promise<TestNats> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'gw-nats-'));
  const run = async () => {
    const child: ChildProcess = spawn(
      NATS_SERVER_BIN,
      [
        ...(options.configFile ? ['-c', options.configFile] : []),
        ...['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
      ],
      {
        stdio: 'ignore',
        env: { ...process.env, ...options.env },
      },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await waitForPort(port, 5_000);
    return async () => {
      child.kill('SIGTERM');
      await exited;
    };
  };
  let kill = await run();
  return {
    url: `nats://127.0.0.1:${port}`,
    restart: async (downMs = 0) => {
      await kill();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      kill = await run();
    },
    stop: async () => {
      await kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
}
