import { type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type RateLimitStore } from './rate-limit-store';

/** A limit of 0 means unlimited. */
export interface RateLimitPolicy {
  /** Requests admitted per fixed window of `windowMs`. */
  requestsPerWindow: number;
  windowMs: number;
  /** Requests holding a lease at once. */
  concurrent: number;
  /**
   * A lease lapses this long after it was taken or last renewed. The replica holding it renews it
   * every third of this while the request runs, so the slots of a replica that died free within it.
   */
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

/** A request's lease: its id, when it was admitted, and when it lapses unless its replica renews it. */
type Lease = [id: string, admittedAt: number, expiresAt: number];

/**
 * One record per limited subject: the current window's count and the leases held now. The leases
 * are a list, not an object keyed by id: an object of a few hundred ids is a dictionary that every
 * admission and release copied at about a microsecond per lease (decision 182).
 */
interface LimitRecord {
  windowStart: number;
  count: number;
  leases: Lease[];
  /** How long this subject's requests held their slot lately (a moving average), to tell a refused client when one frees. */
  typicalHoldMs?: number;
}

/** Weight of the latest request in `typicalHoldMs`. */
const HOLD_AVERAGE_WEIGHT = 0.2;

/** The leases this replica holds on one subject, renewed together: one update per subject and period. */
interface HeldSlots {
  policy: RateLimitPolicy;
  slotIds: Set<string>;
  renewal: NodeJS.Timeout;
}

/**
 * Requests per window and concurrent requests of one subject (an API key, an organization, a client
 * address), counted in a RateLimitStore so that every replica sharing the store shares the limit.
 * A refused request is not counted. Both limits live in one record, so an admission is one update.
 */
export class RateLimiter implements OnApplicationShutdown {
  private readonly held = new Map<string, HeldSlots>();

  constructor(private readonly store: RateLimitStore) {}

  async admit(key: string, policy: RateLimitPolicy): Promise<Admission> {
    if (policy.requestsPerWindow <= 0 && policy.concurrent <= 0) return UNLIMITED;
    const leaseId = randomUUID();
    let refusal: Extract<Admission, { admitted: false }> | null = null;
    const written = await this.store.update<StoredRecord>(key, recordTtl(policy), (current, now) => {
      const record = live(current, policy, now);
      refusal = refusalOf(record, policy, now);
      if (refusal) return record;
      return {
        ...record,
        count: record.count + 1,
        leases: policy.concurrent > 0 ? [...record.leases, [leaseId, now, now + policy.leaseTtlMs]] : [],
      };
    });
    if (refusal) return refusal;
    if (policy.concurrent > 0) this.hold(key, policy, leaseId);
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
    this.letGo(key, counted.leaseId);
    if (policy.concurrent <= 0 && !uncount) return;
    await this.store.update<StoredRecord>(key, recordTtl(policy), (current, now) => {
      const record = live(current, policy, now);
      const given = record.leases.find(([id]) => id === counted.leaseId);
      const sameWindow = record.windowStart === counted.windowStart;
      return {
        ...record,
        count: uncount && sameWindow ? Math.max(0, record.count - 1) : record.count,
        leases: given ? record.leases.filter((lease) => lease !== given) : record.leases,
        typicalHoldMs:
          given && !uncount ? averaged(record.typicalHoldMs, now - given[1]) : record.typicalHoldMs,
      };
    });
  }

  /** Stops renewing: the leases this replica holds lapse as a dead replica's do. */
  onApplicationShutdown(): void {
    for (const subject of this.held.values()) clearInterval(subject.renewal);
    this.held.clear();
  }

  private hold(key: string, policy: RateLimitPolicy, slotId: string): void {
    let subject = this.held.get(key);
    if (!subject) {
      const renewal = setInterval(() => void this.renew(key), Math.max(1, policy.leaseTtlMs / 3));
      // A renewal must not keep a stopping process alive; its leases lapse as they should.
      renewal.unref();
      subject = { policy, slotIds: new Set(), renewal };
      this.held.set(key, subject);
    }
    subject.slotIds.add(slotId);
  }

  private letGo(key: string, slotId: string): void {
    const subject = this.held.get(key);
    if (!subject?.slotIds.delete(slotId) || subject.slotIds.size > 0) return;
    clearInterval(subject.renewal);
    this.held.delete(key);
  }

  /**
   * Moves this replica's leases on `key` to one lease from now. A lease that already lapsed (the
   * store was unreachable for a whole lease) is not taken back: its slot may have been given away.
   */
  private async renew(key: string): Promise<void> {
    const subject = this.held.get(key);
    if (!subject) return;
    const { policy, slotIds } = subject;
    try {
      await this.store.update<StoredRecord>(key, recordTtl(policy), (current, now) => {
        const record = live(current, policy, now);
        const leases = record.leases.map((lease): Lease => {
          const [id, admittedAt] = lease;
          return slotIds.has(id) ? [id, admittedAt, now + policy.leaseTtlMs] : lease;
        });
        return { ...record, leases };
      });
    } catch {
      // The store is unreachable: the next period tries again, and a whole lease of failures lets the slots lapse.
    }
  }
}

/** The record as of `now`: a new window when the old one ended, expired leases dropped. */
function live(current: StoredRecord | null, policy: RateLimitPolicy, now: number): LimitRecord {
  const windowStart = now - (now % policy.windowMs);
  const leases = leasesOf(current).filter(([, , expiresAt]) => expiresAt > now);
  const count = current?.windowStart === windowStart ? current.count : 0;
  return { windowStart, count, leases, typicalHoldMs: current?.typicalHoldMs };
}

/**
 * A record as a store may hold it: written by this version, or by one that kept the leases as an
 * object of `[admittedAt, expiresAt]` by id (`slots`), whose leases count until they lapse.
 */
type StoredRecord = Omit<LimitRecord, 'leases'> & {
  leases?: Lease[];
  slots?: Record<string, [admittedAt: number, expiresAt: number]>;
};

function leasesOf(current: StoredRecord | null): Lease[] {
  if (current?.leases) return current.leases;
  return Object.entries(current?.slots ?? {}).map(([id, [admittedAt, expiresAt]]): Lease => [
    id,
    admittedAt,
    expiresAt,
  ]);
}

function refusalOf(
  record: LimitRecord,
  policy: RateLimitPolicy,
  now: number,
): Extract<Admission, { admitted: false }> | null {
  if (policy.requestsPerWindow > 0 && record.count >= policy.requestsPerWindow)
    return { admitted: false, reason: 'requests', retryAfterMs: record.windowStart + policy.windowMs - now };
  if (policy.concurrent > 0 && record.leases.length >= policy.concurrent)
    return { admitted: false, reason: 'concurrent', retryAfterMs: untilASlotFrees(record, now) };
  return null;
}

/**
 * A slot frees when its request ends, expected once it has run as long as this subject's requests
 * typically do, or when its lease lapses unrenewed (its replica died), whichever comes first.
 */
function untilASlotFrees(record: LimitRecord, now: number): number {
  const frees = record.leases.map(([, admittedAt, expiresAt]) =>
    record.typicalHoldMs === undefined ? expiresAt : Math.min(expiresAt, admittedAt + record.typicalHoldMs),
  );
  return Math.max(0, Math.min(...frees) - now);
}

function averaged(average: number | undefined, latest: number): number {
  return average === undefined ? latest : average + (latest - average) * HOLD_AVERAGE_WEIGHT;
}

function recordTtl(policy: RateLimitPolicy): number {
  return Math.max(policy.windowMs, policy.concurrent > 0 ? policy.leaseTtlMs : 0);
}
