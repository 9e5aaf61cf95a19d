import { Readiness } from './readiness';

describe('Readiness', () => {
  it('is not ready until the app serves', async () => {
    await expect(new Readiness().report()).resolves.toEqual({
      ready: false,
      body: { status: 'starting', checks: {} },
    });
  });

  it('names each dependency down with its reason, credentials redacted, and counts silence as down', async () => {
    const readiness = new Readiness(50);
    readiness.serve([
      { name: 'postgres', check: () => Promise.resolve() },
      {
        name: 'nats',
        check: () => Promise.reject(new Error('cannot reach nats://app:s3cret-pass@nats:4222')),
      },
      { name: 'blob-store', check: () => new Promise(() => undefined) },
    ]);
    await expect(readiness.report()).resolves.toEqual({
      ready: false,
      body: {
        status: 'unavailable',
        checks: {
          postgres: 'up',
          nats: 'down: cannot reach nats://[redacted]@nats:4222',
          'blob-store': 'down: no answer in 50 ms',
        },
      },
    });
  });

  it('checks again on every probe, so it comes back by itself, and shares a round among probes that arrive together', async () => {
    let calls = 0;
    let up = false;
    const readiness = new Readiness();
    readiness.serve([
      { name: 'nats', check: async () => (calls++, up ? undefined : Promise.reject(new Error('x'))) },
    ]);
    const [first, second] = await Promise.all([readiness.report(), readiness.report()]);
    expect(first).toBe(second);
    expect(calls).toBe(1);
    expect(first.ready).toBe(false);
    up = true;
    await expect(readiness.report()).resolves.toMatchObject({ ready: true, body: { status: 'ok' } });
  });

  it('is never ready again once shutting down', async () => {
    const readiness = new Readiness();
    readiness.serve([{ name: 'nats', check: () => Promise.resolve() }]);
    readiness.shutDown();
    await expect(readiness.report()).resolves.toEqual({
      ready: false,
      body: { status: 'shutting_down', checks: { nats: 'up' } },
    });
  });
});
