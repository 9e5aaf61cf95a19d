import { randomUUID } from 'node:crypto';
import { type RateLimitStore } from './rate-limit-store';

/** A limit of 0 means unlimited. */
export interface RateLimitPolicy {
  /** Requests admitted per fixed window of `windowMs`. */
  requestsPerWindow: number;
  windowMs: number;
  /** Requests holding a lease at once. */
  concurrent: number;
  /** A lease not released by then (its replica died) stops counting. */
  leaseTtlMs: number;
}

export type Admission =
  | {
      admitted: true;
      /** The request has ended: its lease is given back. */
      release(): Promise<void>;
      /** The request was refused by another limit after all: its lease and its count are given back. */
      cancel(): Promise<void>;
    }
  | { admitted: false; retryAfterMs: number; reason: 'requests' | 'concurrent' };

const UNLIMITED: Admission = {
  admitted: true,
  release: () => Promise.resolve(),
  cancel: () => Promise.resolve(),
};

/** One record per limited subject: the current window's count and the leases held now. */
interface LimitRecord {
  windowStart: number;
  count: number;
  leases: Record<string, number>;
}

/**
 * Requests per window and concurrent requests of one subject (an API key, an organization, a client
 * address), counted in a RateLimitStore so that every replica sharing the store shares the limit.
 * A refused request is not counted. Both limits live in one record, so an admission is one update.
 */
export class RateLimiter {
  constructor(private readonly store: RateLimitStore) {}

  async admit(key: string, policy: RateLimitPolicy): Promise<Admission> {
    if (policy.requestsPerWindow <= 0 && policy.concurrent <= 0) return UNLIMITED;
    const leaseId = randomUUID();
    let refusal: Extract<Admission, { admitted: false }> | null = null;
    const written = await this.store.update<LimitRecord>(key, recordTtl(policy), (current, now) => {
      const record = live(current, policy, now);
      refusal = refusalOf(record, policy, now);
      if (refusal) return record;
      return {
        ...record,
        count: record.count + 1,
        leases: policy.concurrent > 0 ? { ...record.leases, [leaseId]: now + policy.leaseTtlMs } : {},
      };
    });
    if (refusal) return refusal;
    const counted = { windowStart: written.windowStart, leaseId };
    return {
      admitted: true,
      release: () => this.giveBack(key, policy, counted, false),
      cancel: () => this.giveBack(key, policy, counted, true),
    };
  }

  private async giveBack(
    key: string,
    policy: RateLimitPolicy,
    counted: { windowStart: number; leaseId: string },
    uncount: boolean,
  ): Promise<void> {
    if (policy.concurrent <= 0 && !uncount) return;
    await this.store.update<LimitRecord>(key, recordTtl(policy), (current, now) => {
      const record = live(current, policy, now);
      const { [counted.leaseId]: _given, ...leases } = record.leases;
      const sameWindow = record.windowStart === counted.windowStart;
      return {
        ...record,
        count: uncount && sameWindow ? Math.max(0, record.count - 1) : record.count,
        leases,
      };
    });
  }
}

/** The record as of `now`: a new window when the old one ended, expired leases dropped. */
function live(current: LimitRecord | null, policy: RateLimitPolicy, now: number): LimitRecord {
  const windowStart = now - (now % policy.windowMs);
  const record =
    current && current.windowStart === windowStart ? current : { windowStart, count: 0, leases: {} };
  const leases = Object.fromEntries(
    Object.entries(current?.leases ?? {}).filter(([, expiresAt]) => expiresAt > now),
  );
  return { ...record, leases };
}

function refusalOf(
  record: LimitRecord,
  policy: RateLimitPolicy,
  now: number,
): Extract<Admission, { admitted: false }> | null {
  if (policy.requestsPerWindow > 0 && record.count >= policy.requestsPerWindow)
    return { admitted: false, reason: 'requests', retryAfterMs: record.windowStart + policy.windowMs - now };
  const held = Object.values(record.leases);
  if (policy.concurrent > 0 && held.length >= policy.concurrent)
    return { admitted: false, reason: 'concurrent', retryAfterMs: Math.min(...held) - now };
  return null;
}

function recordTtl(policy: RateLimitPolicy): number {
  return Math.max(policy.windowMs, policy.concurrent > 0 ? policy.leaseTtlMs : 0);
}
