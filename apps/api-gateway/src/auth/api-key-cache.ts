import type { ApiKeyPrincipal } from '@gw/contracts';

export interface ApiKeyCacheOptions {
  /** 0 disables caching: every request asks auth. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

interface Entry {
  principal: ApiKeyPrincipal;
  expiresAt: number;
}

/**
 * Successful API-key lookups by key hash, so a request does not cost a round trip to auth. Only
 * successes are kept, for at most `ttlMs`; a revocation drops the entry at once. A lookup that was
 * already in flight when its key was revoked must not put the key back: `begin()` marks when a
 * lookup started and `set` refuses answers older than the key's last invalidation. Requests that
 * miss together share one lookup (`resolve`).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly invalidatedAt = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<ApiKeyPrincipal>>();
  private epoch = 0;
  private readonly now: () => number;

  constructor(private readonly options: ApiKeyCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(keyHash: string): ApiKeyPrincipal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.principal;
  }

  /**
   * The principal of `keyHash`: cached, or what `lookUp` answers, one lookup for all the requests that
   * miss while it runs (a burst of a key's first requests, or of its requests when its entry expires,
   * asks auth once). A failed lookup fails those requests and is not kept. After a revocation, requests
   * start a lookup of their own rather than join one begun before it.
   */
  resolve(keyHash: string, lookUp: () => Promise<ApiKeyPrincipal>): Promise<ApiKeyPrincipal> {
    const cached = this.get(keyHash);
    if (cached) return Promise.resolve(cached);
    if (this.options.ttlMs <= 0) return lookUp();
    const pending = this.inFlight.get(keyHash);
    if (pending) return pending;
    const startedAt = this.begin();
    const lookup = lookUp()
      .then((principal) => {
        this.set(keyHash, principal, startedAt);
        return principal;
      })
      .finally(() => {
        if (this.inFlight.get(keyHash) === lookup) this.inFlight.delete(keyHash);
      });
    this.inFlight.set(keyHash, lookup);
    return lookup;
  }

  /** Call before asking auth; pass the result to `set`. */
  begin(): number {
    return this.epoch;
  }

  set(keyHash: string, principal: ApiKeyPrincipal, lookupStartedAt: number): void {
    if (this.options.ttlMs <= 0) return;
    if ((this.invalidatedAt.get(keyHash) ?? -1) >= lookupStartedAt) return;
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, expiresAt: this.now() + this.options.ttlMs });
    this.evictOldest(this.entries);
  }

  invalidate(keyHash: string): void {
    this.entries.delete(keyHash);
    this.inFlight.delete(keyHash);
    this.invalidatedAt.delete(keyHash);
    this.invalidatedAt.set(keyHash, this.epoch++);
    this.evictOldest(this.invalidatedAt);
  }

  /** For the replica that served the revocation, which knows the id but not the hash. */
  invalidateApiKeyId(apiKeyId: string): void {
    for (const [keyHash, entry] of this.entries) {
      if (entry.principal.apiKeyId === apiKeyId) this.invalidate(keyHash);
    }
  }

  /** Maps iterate in insertion order, so the first keys are the oldest. */
  private evictOldest<V>(map: Map<string, V>): void {
    while (map.size > this.options.maxEntries) {
      const oldest = map.keys().next().value as string;
      map.delete(oldest);
    }
  }
}
