import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FIRST_CANDIDATE = 10_000;

/**
 * A TCP port free on 127.0.0.1, for a process a test is about to start.
 *
 * Ports come from below the kernel's ephemeral range. A port the kernel hands out for port 0 is
 * also its pool for outgoing connections: between the probe closing and the app binding, one of
 * the suite's Postgres or NATS clients can take it as its local port and the app fails with
 * EADDRINUSE. Each process walks the range from its own random start, so parallel workers rarely
 * probe the same port at the same moment, and never hands out one port twice to concurrent calls.
 */
export async function freePort(): Promise<number> {
  const [first, last] = (range ??= candidateRange());
  const span = last - first + 1;
  for (let attempt = 0; attempt < span; attempt++) {
    const port = first + (nextOffset++ % span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${first} and ${last}`);
}

let nextOffset = Math.floor(Math.random() * 1_000_000);
/** Read from the kernel at the first call only: the range does not change while the tests run. */
let range: [number, number] | undefined;

function candidateRange(): [number, number] {
  const ephemeralStart = ephemeralRangeStart();
  const first = ephemeralStart > FIRST_CANDIDATE + 1_000 ? FIRST_CANDIDATE : 1_025;
  return [first, ephemeralStart - 1];
}

function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(start);
    return Number.isInteger(port) && port > 2_048 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
