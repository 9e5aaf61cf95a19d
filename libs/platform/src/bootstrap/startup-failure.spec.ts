import { createServer } from 'node:net';
import { StartupError } from '../env/load-env';
import { assertPortFree } from './http-listen';
import { listenFailure, startupFailureLine } from './startup-failure';

describe('start-up failure lines', () => {
  it('prints a StartupError as its message, anything else naming the app', () => {
    expect(startupFailureLine('auth', new StartupError('Cannot reach NATS at x'))).toBe(
      'Cannot reach NATS at x',
    );
    expect(startupFailureLine('auth', new Error('boom'))).toBe('auth failed to start: boom');
    expect(startupFailureLine('auth', undefined)).toBe('auth failed to start: undefined');
  });

  it('names the port and the variable of a failed listen', () => {
    const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect((listenFailure(busy, 3000, '0.0.0.0', 'PORT') as Error).message).toBe(
      'Port 3000 is already in use: stop the other process or set PORT to a free port',
    );
    const other = new Error('other');
    expect(listenFailure(other, 3000, '0.0.0.0', 'PORT')).toBe(other);
  });

  it('finds a busy port before listening', async () => {
    const server = createServer();
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
    try {
      await expect(assertPortFree(port, '127.0.0.1', 'HEALTH_PORT')).rejects.toThrow(
        `Port ${port} is already in use: stop the other process or set HEALTH_PORT to a free port`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await expect(assertPortFree(port, '127.0.0.1')).resolves.toBeUndefined();
  });
});
