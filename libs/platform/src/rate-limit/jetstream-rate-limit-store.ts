import { type OnApplicationShutdown } from '@nestjs/common';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  type JetStreamClient,
  type JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { connect, errors, type NatsConnection } from '@nats-io/transport-node';
import { DomainError } from '@gw/contracts';
import { type NatsAuth } from '../transport/transport-options';
import { createHash } from 'node:crypto';
import { RATE_LIMIT_RECORD_MAX_TTL_MS, RateLimitStore } from './rate-limit-store';

export const RATE_LIMIT_STREAM = 'GW_RATE_LIMITS';
/** The subjects the counters are stored under (one per key), which NATS permissions grant the gateway. */
export const RATE_LIMIT_SUBJECT_PREFIX = 'gw.rate-limit.';

/** Writers on other replicas that changed the same record first; past this many the update gives up. */
const MAX_CONFLICTS = 50;
/** Enough for the keys, organizations and addresses active on one replica; the oldest go first. */
const LAST_WRITTEN_MAX_ENTRIES = 10_000;

interface StoredRecord {
  value: unknown;
  expiresAt: number;
}

/** A record and its stream sequence, as this replica last wrote or read it. */
interface KnownRecord {
  seq: number;
  record: StoredRecord | null;
}

interface Connected {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/**
 * The store shared by every gateway replica: one JetStream subject per key in an in-memory stream
 * that keeps the last message of each subject, the way a NATS KV bucket does. An update reads the
 * last message and publishes the next one on condition that it is still the last
 * (`Nats-Expected-Last-Subject-Sequence`), retrying when another replica wrote first. Updates of one
 * key on this replica run one after the other, so only replicas contend. Cost: one round trip to
 * NATS per update while this replica was the last to write the key (it remembers what it wrote),
 * two (read, then write) after another replica wrote it.
 */
export class JetStreamRateLimitStore extends RateLimitStore implements OnApplicationShutdown {
  private connection?: Promise<Connected>;
  private readonly queues = new Map<string, Promise<unknown>>();
  /** What this replica wrote last per subject: while no other replica writes it, an update is one round trip. */
  private readonly lastWritten = new Map<string, KnownRecord>();

  constructor(
    private readonly servers: string,
    private readonly auth: NatsAuth = {},
  ) {
    super();
  }

  get<T>(key: string): Promise<T | null> {
    return unavailableAsDomainError(() =>
      this.recreatingLostStream(async () => {
        const { jsm } = await this.connected();
        const stored = await jsm.streams.getMessage(RATE_LIMIT_STREAM, { last_by_subj: subjectOf(key) });
        return stored ? liveValue<T>(stored.json<StoredRecord>(), Date.now()) : null;
      }),
    );
  }

  update<T>(key: string, ttlMs: number, change: (current: T | null, now: number) => T): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = () =>
      unavailableAsDomainError(() => this.recreatingLostStream(() => this.compareAndSet(key, ttlMs, change)));
    const next = previous.then(run, run);
    this.queues.set(key, next);
    const forget = () => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    };
    next.then(forget, forget);
    return next;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.connection) await (await this.connection).nc.drain();
  }

  private async compareAndSet<T>(
    key: string,
    ttlMs: number,
    change: (current: T | null, now: number) => T,
  ): Promise<T> {
    const { js, jsm } = await this.connected();
    const subject = subjectOf(key);
    let known = this.lastWritten.get(subject) ?? null;
    for (let conflicts = 0; ; conflicts++) {
      if (!known) {
        const stored = await jsm.streams.getMessage(RATE_LIMIT_STREAM, { last_by_subj: subject });
        known = stored ? { seq: stored.seq, record: stored.json<StoredRecord>() } : { seq: 0, record: null };
      }
      const now = Date.now();
      const value = change(known.record ? liveValue<T>(known.record, now) : null, now);
      const record: StoredRecord = { value, expiresAt: now + Math.min(ttlMs, RATE_LIMIT_RECORD_MAX_TTL_MS) };
      try {
        const ack = await js.publish(subject, JSON.stringify(record), {
          expect: { lastSubjectSequence: known.seq },
        });
        this.remember(subject, { seq: ack.seq, record });
        return value;
      } catch (err) {
        this.lastWritten.delete(subject);
        known = null;
        if (!isWrongLastSequence(err) || conflicts >= MAX_CONFLICTS) throw err;
      }
    }
  }

  /**
   * The stream lives in memory, so a NATS restart loses it (and every count, which only forgives
   * some requests). Creating it again, forgetting the sequences written before, lets limits work
   * on at once instead of answering 503 until the gateway restarts.
   */
  private async recreatingLostStream<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!isLostStream(err)) throw err;
      this.lastWritten.clear();
      await ensureStream((await this.connected()).jsm);
      return work();
    }
  }

  private remember(subject: string, written: KnownRecord): void {
    this.lastWritten.delete(subject);
    this.lastWritten.set(subject, written);
    if (this.lastWritten.size > LAST_WRITTEN_MAX_ENTRIES)
      this.lastWritten.delete(this.lastWritten.keys().next().value as string);
  }

  private connected(): Promise<Connected> {
    this.connection ??= (async () => {
      const nc = await connect({ servers: this.servers, ...this.auth, name: 'rate-limits' });
      const jsm = await jetstreamManager(nc);
      await ensureStream(jsm);
      return { nc, jsm, js: jetstream(nc) };
    })();
    // A failed connection is tried again by the next update rather than remembered.
    const connection = this.connection;
    void connection.catch(() => {
      if (this.connection === connection) this.connection = undefined;
    });
    return connection;
  }
}

async function ensureStream(jsm: JetStreamManager): Promise<void> {
  const config = {
    name: RATE_LIMIT_STREAM,
    subjects: [`${RATE_LIMIT_SUBJECT_PREFIX}>`],
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: 1,
    max_age: RATE_LIMIT_RECORD_MAX_TTL_MS * 1_000_000, // nanoseconds
  };
  try {
    await jsm.streams.info(RATE_LIMIT_STREAM);
  } catch {
    try {
      await jsm.streams.add(config);
    } catch (err) {
      // Another replica may have created it between our lookup and our add.
      await jsm.streams.info(RATE_LIMIT_STREAM).catch(() => {
        throw err;
      });
    }
  }
}

/** Keys carry addresses and e-mails, which are not subject tokens; a digest is, and says nothing. */
function subjectOf(key: string): string {
  return RATE_LIMIT_SUBJECT_PREFIX + createHash('sha256').update(key).digest('hex').slice(0, 40);
}

function liveValue<T>(record: StoredRecord, now: number): T | null {
  return record.expiresAt > now ? (record.value as T) : null;
}

/** NATS being down fails the request with a 503, as an unavailable service does, never a 500. */
async function unavailableAsDomainError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw new DomainError(
      'service_unavailable',
      `The rate limit store is not available: ${(err as Error).message}`,
    );
  }
}

/** A read of a stream that is gone, or a publish that no stream takes any more. */
function isLostStream(err: unknown): boolean {
  return (
    (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) ||
    err instanceof errors.NoRespondersError ||
    (err instanceof Error && err.cause instanceof errors.NoRespondersError)
  );
}

function isWrongLastSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence;
}
