import { createServer } from 'node:net';

/** Whether `port` can be listened on at 127.0.0.1, where the embedded PostgreSQL listens. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A port the system has just handed out as free at 127.0.0.1, other than `reserved`: a port this
 * process is about to listen on is free until then, and the system may hand it out again.
 */
export async function freePort(reserved: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await systemFreePort();
    if (!reserved.includes(port)) return port;
  }
}

function systemFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
