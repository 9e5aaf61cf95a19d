import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './free-port';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);

function listenOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

describe('freePort', () => {
  it('hands out ports below the range the kernel uses for outgoing connections', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
    expect(new Set(ports).size).toBe(3);
  });

  it('gives concurrent callers distinct ports that can each be listened on', async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
    expect(new Set(ports).size).toBe(8);
    await Promise.all(ports.map(listenOnce));
  });
});
