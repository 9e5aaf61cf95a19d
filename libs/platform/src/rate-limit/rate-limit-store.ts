/**
 * Where the records of a RateLimiter or a FailureBackoff live: in this process (embedded mode, one
 * replica) or in NATS JetStream, shared by every gateway replica.
 */
export abstract class RateLimitStore {
  /** The record under `key`, or null when there is none or it has expired. */
  abstract get<T>(key: string): Promise<T | null>;

  /**
   * Replaces the record under `key` by `change(current, now)` atomically with respect to every
   * other user of the store, and returns what was written. `current` is null when there is no
   * record or it has expired; the written record expires `ttlMs` after `now`. `change` may run more
   * than once (optimistic retries), so it must only compute.
   */
  abstract update<T>(key: string, ttlMs: number, change: (current: T | null, now: number) => T): Promise<T>;
}

/** No record is kept longer than this; the shared store's stream discards older ones by itself. */
export const RATE_LIMIT_RECORD_MAX_TTL_MS = 2 * 60 * 60_000;
