import { expectEventually, startTestNats, type TestNats } from '@gw/testing';
import { JetStreamRateLimitStore } from './jetstream-rate-limit-store';
import { RateLimiter, type RateLimitPolicy } from './rate-limiter';

const policy: RateLimitPolicy = { requestsPerWindow: 40, windowMs: 60_000, concurrent: 0, leaseTtlMs: 0 };

describe('JetStreamRateLimitStore', () => {
  let nats: TestNats;
  let replicas: JetStreamRateLimitStore[];

  beforeAll(async () => {
    nats = await startTestNats();
    replicas = [new JetStreamRateLimitStore(nats.url), new JetStreamRateLimitStore(nats.url)];
  });

  afterAll(async () => {
    await Promise.all(replicas.map((store) => store.onApplicationShutdown()));
    await nats?.stop();
  });

  it('shares one limit between replicas writing the same key at once', async () => {
    const limiters = replicas.map((store) => new RateLimiter(store));
    const admissions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => limiters[i % 2].admit('key shared by replicas', policy)),
    );
    expect(admissions.filter((a) => a.admitted)).toHaveLength(40);
    expect(admissions.filter((a) => !a.admitted)).toHaveLength(20);
  });

  it('reads back what another replica wrote, and nothing once it expired', async () => {
    await replicas[0].update('record', 10_000, () => ({ n: 1 }));
    expect(await replicas[1].get('record')).toEqual({ n: 1 });
    await replicas[1].update('short', 30, () => ({ n: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await replicas[0].get('short')).toBeNull();
  });

  it('fails with service_unavailable, not an internal error, while NATS cannot be reached', async () => {
    const unreachable = new JetStreamRateLimitStore('nats://127.0.0.1:1');
    await expect(unreachable.update('key', 1_000, () => 1)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    await expect(unreachable.get('key')).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('counts on after a NATS restart loses its in-memory stream, instead of answering 503', async () => {
    const limiter = new RateLimiter(replicas[0]);
    expect((await limiter.admit('key across a restart', policy)).admitted).toBe(true);
    await nats.restart();
    await expectEventually(async () => {
      expect((await limiter.admit('key across a restart', policy)).admitted).toBe(true);
    });
    await replicas[1].update('after restart', 10_000, () => ({ n: 3 }));
    expect(await replicas[0].get('after restart')).toEqual({ n: 3 });
  });
});
