import type { ApiKeyPrincipal } from '@gw/contracts';
import { ApiKeyCache } from './api-key-cache';

const principal = (apiKeyId: string): ApiKeyPrincipal => ({
  kind: 'api_key',
  organizationId: 'org-1',
  apiKeyId,
  apiKeyName: `key ${apiKeyId}`,
  apiKeyShort: 'abcdef',
  userId: null,
});

describe('ApiKeyCache', () => {
  let clock: number;
  const cache = (ttlMs = 1_000, maxEntries = 100) => new ApiKeyCache({ ttlMs, maxEntries, now: () => clock });

  beforeEach(() => {
    clock = 1_000_000;
  });

  it('returns a stored lookup until its TTL has passed', () => {
    const c = cache(1_000);
    c.set('h1', principal('k1'), c.begin());
    clock += 999;
    expect(c.get('h1')).toEqual(principal('k1'));
    clock += 1;
    expect(c.get('h1')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('misses unknown hashes', () => {
    expect(cache().get('nope')).toBeUndefined();
  });

  it('stores nothing when the TTL is 0', () => {
    const c = cache(0);
    c.set('h1', principal('k1'), c.begin());
    expect(c.get('h1')).toBeUndefined();
  });

  it('drops an entry on invalidation by hash', () => {
    const c = cache();
    c.set('h1', principal('k1'), c.begin());
    c.set('h2', principal('k2'), c.begin());
    c.invalidate('h1');
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h2')).toEqual(principal('k2'));
  });

  it('drops an entry on invalidation by key id', () => {
    const c = cache();
    c.set('h1', principal('k1'), c.begin());
    c.set('h2', principal('k2'), c.begin());
    c.invalidateApiKeyId('k2');
    expect(c.get('h2')).toBeUndefined();
    expect(c.get('h1')).toEqual(principal('k1'));
  });

  it('refuses the answer of a lookup that started before the key was revoked', () => {
    const c = cache();
    const started = c.begin();
    c.invalidate('h1');
    c.set('h1', principal('k1'), started);
    expect(c.get('h1')).toBeUndefined();
  });

  it('caches a lookup that started after an earlier revocation of the same hash', () => {
    const c = cache();
    c.invalidate('h1');
    const started = c.begin();
    c.set('h1', principal('k1'), started);
    expect(c.get('h1')).toEqual(principal('k1'));
  });

  it('holds at most maxEntries, evicting the oldest first', () => {
    const c = cache(1_000, 3);
    for (const n of [1, 2, 3, 4]) c.set(`h${n}`, principal(`k${n}`), c.begin());
    expect(c.size).toBe(3);
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h4')).toEqual(principal('k4'));
  });

  it('refreshes the position and expiry of an entry set again', () => {
    const c = cache(1_000, 2);
    c.set('h1', principal('k1'), c.begin());
    clock += 500;
    c.set('h2', principal('k2'), c.begin());
    c.set('h1', principal('k1'), c.begin());
    c.set('h3', principal('k3'), c.begin());
    expect(c.get('h2')).toBeUndefined();
    clock += 900;
    expect(c.get('h1')).toEqual(principal('k1'));
  });
  /** A lookup the test answers when it chooses, counting how often auth was asked. */
  const pendingLookups = () => {
    const answers: { resolve(p: ApiKeyPrincipal): void; reject(err: Error): void }[] = [];
    const lookUp = () => new Promise<ApiKeyPrincipal>((resolve, reject) => answers.push({ resolve, reject }));
    return { answers, lookUp };
  };

  it('asks auth once for the requests that miss together, and answers each of them', async () => {
    const c = cache();
    const { answers, lookUp } = pendingLookups();
    const waiting = [c.resolve('h1', lookUp), c.resolve('h1', lookUp), c.resolve('h1', lookUp)];
    const other = c.resolve('h2', lookUp);
    expect(answers).toHaveLength(2);
    answers[0].resolve(principal('k1'));
    answers[1].resolve(principal('k2'));
    await expect(Promise.all(waiting)).resolves.toEqual([principal('k1'), principal('k1'), principal('k1')]);
    await expect(other).resolves.toEqual(principal('k2'));
    await expect(c.resolve('h1', lookUp)).resolves.toEqual(principal('k1'));
    expect(answers).toHaveLength(2);
  });

  it('fails the requests that shared a failed lookup, keeps nothing of it, and asks again for the next', async () => {
    const c = cache();
    const { answers, lookUp } = pendingLookups();
    const waiting = [c.resolve('h1', lookUp), c.resolve('h1', lookUp)];
    answers[0].reject(new Error('auth is not available'));
    await expect(Promise.all(waiting)).rejects.toThrow('auth is not available');
    const again = c.resolve('h1', lookUp);
    expect(answers).toHaveLength(2);
    answers[1].resolve(principal('k1'));
    await expect(again).resolves.toEqual(principal('k1'));
  });

  it('lets a request after a revocation start its own lookup instead of joining one begun before it', async () => {
    const c = cache();
    const { answers, lookUp } = pendingLookups();
    const before = c.resolve('h1', lookUp);
    c.invalidate('h1');
    const after = c.resolve('h1', lookUp);
    expect(answers).toHaveLength(2);
    answers[0].resolve(principal('k1'));
    answers[1].reject(new Error('Invalid API key'));
    await expect(before).resolves.toEqual(principal('k1'));
    await expect(after).rejects.toThrow('Invalid API key');
    // The answer of the lookup begun before the revocation was not cached.
    expect(c.get('h1')).toBeUndefined();
  });

  it('asks auth for every request when the TTL is 0', async () => {
    const c = cache(0);
    const { answers, lookUp } = pendingLookups();
    const waiting = [c.resolve('h1', lookUp), c.resolve('h1', lookUp)];
    expect(answers).toHaveLength(2);
    answers.forEach((answer) => answer.resolve(principal('k1')));
    await Promise.all(waiting);
  });
});
