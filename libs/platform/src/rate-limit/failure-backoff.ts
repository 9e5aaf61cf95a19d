import { type RateLimitStore } from './rate-limit-store';

export interface BackoffPolicy {
  /** Failures allowed before any wait. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones; it doubles with each further failure. */
  baseDelayMs: number;
  /** No wait is ever longer, so an attacker can delay a real user but never lock them out for good. */
  maxDelayMs: number;
  /** Failures are forgotten this long after the last one. */
  memoryMs: number;
}

interface FailureRecord {
  failures: number;
  blockedUntil: number;
}

/**
 * Exponential backoff after failed attempts of one subject (an account, a client address). With
 * `attempt`, an attempt is counted as a failure before it is tried, so parallel guesses cannot all
 * slip through before the first failure is recorded, and a success then `reset`s or `forgive`s it.
 * With `waitFor` and `fail`, only failures are written, for callers whose successes are frequent.
 */
export class FailureBackoff {
  constructor(
    private readonly store: RateLimitStore,
    private readonly policy: BackoffPolicy,
  ) {}

  /** Counts an attempt; returns 0 when it may go ahead, otherwise how long the caller must wait. */
  async attempt(key: string): Promise<number> {
    let waitMs = 0;
    await this.store.update<FailureRecord>(key, this.policy.memoryMs, (current, now) => {
      const record = current ?? { failures: 0, blockedUntil: 0 };
      waitMs = Math.max(0, record.blockedUntil - now);
      if (waitMs > 0) return record;
      const failures = record.failures + 1;
      return { failures, blockedUntil: failures > this.policy.freeFailures ? now + this.delay(failures) : 0 };
    });
    return waitMs;
  }

  /** How long the subject must still wait (0: it may try), without counting anything. */
  async waitFor(key: string): Promise<number> {
    const record = await this.store.get<FailureRecord>(key);
    return record ? Math.max(0, record.blockedUntil - Date.now()) : 0;
  }

  /** Counts a failure that was not counted by `attempt` beforehand. */
  async fail(key: string): Promise<void> {
    await this.store.update<FailureRecord>(key, this.policy.memoryMs, (current, now) => {
      const failures = (current?.failures ?? 0) + 1;
      const blockedUntil = failures > this.policy.freeFailures ? now + this.delay(failures) : 0;
      return { failures, blockedUntil: Math.max(blockedUntil, current?.blockedUntil ?? 0) };
    });
  }

  /** The attempt succeeded: every failure of the subject is forgotten. */
  async reset(key: string): Promise<void> {
    await this.store.update<FailureRecord>(key, this.policy.memoryMs, () => ({
      failures: 0,
      blockedUntil: 0,
    }));
  }

  /** The attempt succeeded, but the subject's earlier failures still stand. */
  async forgive(key: string): Promise<void> {
    await this.store.update<FailureRecord>(key, this.policy.memoryMs, (current) =>
      current
        ? { ...current, failures: Math.max(0, current.failures - 1) }
        : { failures: 0, blockedUntil: 0 },
    );
  }

  private delay(failures: number): number {
    const doublings = Math.min(failures - this.policy.freeFailures - 1, 40);
    return Math.min(this.policy.baseDelayMs * 2 ** doublings, this.policy.maxDelayMs);
  }
}
