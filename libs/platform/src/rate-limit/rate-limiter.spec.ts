import { FailureBackoff } from './failure-backoff';
import { InMemoryRateLimitStore } from './in-memory-rate-limit-store';
import { RateLimiter, type RateLimitPolicy } from './rate-limiter';

const policy: RateLimitPolicy = { requestsPerWindow: 3, windowMs: 60_000, concurrent: 2, leaseTtlMs: 60_000 };

describe('RateLimiter', () => {
  it('admits the requests of one window up to the limit and tells when the window ends', async () => {
    const limiter = new RateLimiter(new InMemoryRateLimitStore());
    const unlimitedConcurrency = { ...policy, concurrent: 0 };
    for (let i = 0; i < 3; i++)
      expect((await limiter.admit('key', unlimitedConcurrency)).admitted).toBe(true);
    const refused = await limiter.admit('key', unlimitedConcurrency);
    expect(refused).toEqual({ admitted: false, reason: 'requests', retryAfterMs: expect.any(Number) });
    expect(refused.admitted === false && refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.admitted === false && refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect((await limiter.admit('other key', unlimitedConcurrency)).admitted).toBe(true);
  });

  it('holds a lease per request until it is released', async () => {
    const limiter = new RateLimiter(new InMemoryRateLimitStore());
    const unlimitedRate = { ...policy, requestsPerWindow: 0 };
    const first = await limiter.admit('key', unlimitedRate);
    const second = await limiter.admit('key', unlimitedRate);
    expect(await limiter.admit('key', unlimitedRate)).toMatchObject({
      admitted: false,
      reason: 'concurrent',
    });
    if (!first.admitted || !second.admitted) throw new Error('the first two were admitted');
    await first.release();
    expect((await limiter.admit('key', unlimitedRate)).admitted).toBe(true);
  });

  it('gives back the count of a request cancelled because another limit refused it', async () => {
    const limiter = new RateLimiter(new InMemoryRateLimitStore());
    const onePerWindow = { ...policy, requestsPerWindow: 1 };
    const admitted = await limiter.admit('key', onePerWindow);
    if (!admitted.admitted) throw new Error('the first was admitted');
    await admitted.cancel();
    expect((await limiter.admit('key', onePerWindow)).admitted).toBe(true);
    expect((await limiter.admit('key', onePerWindow)).admitted).toBe(false);
  });

  it('counts the leases of a record the previous version wrote, by id, until they lapse', async () => {
    const store = new InMemoryRateLimitStore();
    const now = Date.now();
    await store.update('key', 60_000, () => ({
      windowStart: now - (now % policy.windowMs),
      count: 1,
      slots: { 'lease-of-an-old-replica': [now, now + 150] },
    }));
    const limiter = new RateLimiter(store);
    const oneAtOnce = { ...policy, requestsPerWindow: 0, concurrent: 1 };
    expect(await limiter.admit('key', oneAtOnce)).toMatchObject({ admitted: false, reason: 'concurrent' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await limiter.admit('key', oneAtOnce)).admitted).toBe(true);
  });

  it('keeps a lease per request in flight for hundreds at once, and gives each back', async () => {
    const store = new InMemoryRateLimitStore();
    const limiter = new RateLimiter(store);
    const many = { ...policy, requestsPerWindow: 0, concurrent: 500 };
    const admitted = await Promise.all(Array.from({ length: 500 }, () => limiter.admit('key', many)));
    expect(admitted.every((admission) => admission.admitted)).toBe(true);
    expect(await limiter.admit('key', many)).toMatchObject({ admitted: false, reason: 'concurrent' });
    await Promise.all(
      admitted.map((admission) => {
        if (!admission.admitted) throw new Error('all 500 were admitted');
        return admission.release();
      }),
    );
    expect(await store.get<{ leases: unknown[] }>('key')).toMatchObject({ leases: [] });
    limiter.onApplicationShutdown();
  });

  describe('with the clock in hand', () => {
    beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
    afterEach(() => jest.useRealTimers());
    const oneSlot = { ...policy, requestsPerWindow: 0, concurrent: 1, leaseTtlMs: 9_000 };

    it('renews the lease of a running request, and frees the slot of a replica that stopped within a lease', async () => {
      const store = new InMemoryRateLimitStore();
      const [crashing, surviving] = [new RateLimiter(store), new RateLimiter(store)];
      expect((await crashing.admit('key', oneSlot)).admitted).toBe(true);
      await jest.advanceTimersByTimeAsync(5 * oneSlot.leaseTtlMs);
      expect((await surviving.admit('key', oneSlot)).admitted).toBe(false);

      crashing.onApplicationShutdown();
      await jest.advanceTimersByTimeAsync(oneSlot.leaseTtlMs);
      expect((await surviving.admit('key', oneSlot)).admitted).toBe(true);
    });

    it('tells a refused request when a slot is likely to free, from how long requests hold one', async () => {
      const limiter = new RateLimiter(new InMemoryRateLimitStore());
      const refusedAfter = async () => {
        const refused = await limiter.admit('key', oneSlot);
        if (refused.admitted) throw new Error('the slot is taken');
        return refused.retryAfterMs;
      };
      const first = await limiter.admit('key', oneSlot);
      if (!first.admitted) throw new Error('the first was admitted');
      // Nothing learned yet: at the latest when the lease lapses, never more than a lease away.
      expect(await refusedAfter()).toBeLessThanOrEqual(oneSlot.leaseTtlMs);
      await jest.advanceTimersByTimeAsync(2_000);
      await first.release();

      expect((await limiter.admit('key', oneSlot)).admitted).toBe(true);
      await jest.advanceTimersByTimeAsync(500);
      expect(await refusedAfter()).toBe(1_500);
      await jest.advanceTimersByTimeAsync(20_000);
      expect(await refusedAfter()).toBe(0);
    });
  });
});

describe('FailureBackoff', () => {
  const backoff = () =>
    new FailureBackoff(new InMemoryRateLimitStore(), {
      freeFailures: 2,
      baseDelayMs: 1_000,
      maxDelayMs: 4_000,
      memoryMs: 60_000,
    });

  it('lets the free failures through, then doubles the wait up to the bound', async () => {
    const subject = backoff();
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setTimeout', 'setImmediate', 'nextTick'] });
    try {
      expect(await subject.attempt('a')).toBe(0);
      expect(await subject.attempt('a')).toBe(0);
      expect(await subject.attempt('a')).toBe(0);
      expect(await subject.attempt('a')).toBe(1_000);
      const waits = [];
      for (let i = 0; i < 4; i++) {
        jest.setSystemTime(Date.now() + (await subject.attempt('a')));
        expect(await subject.attempt('a')).toBe(0);
        waits.push(await subject.attempt('a'));
      }
      expect(waits).toEqual([2_000, 4_000, 4_000, 4_000]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('forgets every failure on reset, and one on forgive', async () => {
    const subject = backoff();
    await subject.attempt('a');
    await subject.attempt('a');
    await subject.forgive('a');
    expect(await subject.attempt('a')).toBe(0);
    expect(await subject.attempt('a')).toBe(0);
    expect(await subject.attempt('a')).toBeGreaterThan(0);
    await subject.reset('a');
    expect(await subject.attempt('a')).toBe(0);
  });
});

describe('FailureBackoff counting failures only', () => {
  it('waits only once the failures exceed the free ones', async () => {
    const subject = new FailureBackoff(new InMemoryRateLimitStore(), {
      freeFailures: 1,
      baseDelayMs: 10_000,
      maxDelayMs: 10_000,
      memoryMs: 60_000,
    });
    await subject.fail('a');
    expect(await subject.waitFor('a')).toBe(0);
    await subject.fail('a');
    expect(await subject.waitFor('a')).toBeGreaterThan(9_000);
    expect(await subject.waitFor('b')).toBe(0);
  });
});
