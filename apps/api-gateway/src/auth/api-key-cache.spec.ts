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
});
