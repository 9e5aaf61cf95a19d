import { RATE_LIMIT_RECORD_MAX_TTL_MS, RateLimitStore } from './rate-limit-store';

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** Expired entries are swept after this many writes, so addresses seen once do not pile up. */
const SWEEP_EVERY_WRITES = 1_000;

/** The store of the embedded mode: one process is the only replica, so a Map is the shared state. */
export class InMemoryRateLimitStore extends RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private writes = 0;

  get<T>(key: string): Promise<T | null> {
    return Promise.resolve(this.current<T>(key, Date.now()));
  }

  update<T>(key: string, ttlMs: number, change: (current: T | null, now: number) => T): Promise<T> {
    const now = Date.now();
    const value = change(this.current<T>(key, now), now);
    this.entries.set(key, { value, expiresAt: now + Math.min(ttlMs, RATE_LIMIT_RECORD_MAX_TTL_MS) });
    if (++this.writes % SWEEP_EVERY_WRITES === 0) this.sweep(now);
    return Promise.resolve(value);
  }

  private current<T>(key: string, now: number): T | null {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > now ? (entry.value as T) : null;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
