import type { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import { listenFailure } from './startup-failure';

/** `app.listen`, with a busy or forbidden port reported as one line naming `variable`. */
export async function listenHttp(
  app: INestApplication,
  port: number,
  host: string,
  variable = 'PORT',
): Promise<void> {
  try {
    await app.listen(port, host);
  } catch (err) {
    throw listenFailure(err, port, host, variable);
  }
}

/**
 * Fails early, before anything slow starts, when `port` cannot be listened on; the real listen
 * still reports a port taken in between.
 */
export function assertPortFree(port: number, host: string, variable = 'PORT'): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(listenFailure(err, port, host, variable)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
