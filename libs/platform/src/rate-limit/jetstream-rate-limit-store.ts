import { OnApplicationShutdown } from '@nestjs/common';
import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstream,
  JetStreamClient,
  JetStreamManager,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { createHash } from 'node:crypto';
import { RATE_LIMIT_RECORD_MAX_TTL_MS, RateLimitStore } from './rate-limit-store';

export const RATE_LIMIT_STREAM = 'GW_RATE_LIMITS';
const SUBJECT_PREFIX = 'gw.rate-limit.';

/** Writers on other replicas that changed the same record first; past this many the update gives up. */
const MAX_CONFLICTS = 50;

interface StoredRecord {
  value: unknown;
  expiresAt: number;
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
 * key on this replica run one after the other, so only replicas contend. Cost: two round trips to
 * NATS per update.
 */
export class JetStreamRateLimitStore extends RateLimitStore implements OnApplicationShutdown {
  private connection?: Promise<Connected>;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly servers: string) {
    super();
  }

  async get<T>(key: string): Promise<T | null> {
    const { jsm } = await this.connected();
    const stored = await jsm.streams.getMessage(RATE_LIMIT_STREAM, { last_by_subj: subjectOf(key) });
    return stored ? liveValue<T>(stored.json<StoredRecord>(), Date.now()) : null;
  }

  update<T>(key: string, ttlMs: number, change: (current: T | null, now: number) => T): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(
      () => this.compareAndSet(key, ttlMs, change),
      () => this.compareAndSet(key, ttlMs, change),
    );
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
    for (let conflicts = 0; ; conflicts++) {
      const stored = await jsm.streams.getMessage(RATE_LIMIT_STREAM, { last_by_subj: subject });
      const now = Date.now();
      const value = change(stored ? liveValue<T>(stored.json<StoredRecord>(), now) : null, now);
      const record: StoredRecord = { value, expiresAt: now + Math.min(ttlMs, RATE_LIMIT_RECORD_MAX_TTL_MS) };
      try {
        await js.publish(subject, JSON.stringify(record), {
          expect: { lastSubjectSequence: stored?.seq ?? 0 },
        });
        return value;
      } catch (err) {
        if (!isWrongLastSequence(err) || conflicts >= MAX_CONFLICTS) throw err;
      }
    }
  }

  private connected(): Promise<Connected> {
    this.connection ??= (async () => {
      const nc = await connect({ servers: this.servers, name: 'rate-limits' });
      const jsm = await jetstreamManager(nc);
      await ensureStream(jsm);
      return { nc, jsm, js: jetstream(nc) };
    })();
    return this.connection;
  }
}

async function ensureStream(jsm: JetStreamManager): Promise<void> {
  const config = {
    name: RATE_LIMIT_STREAM,
    subjects: [`${SUBJECT_PREFIX}>`],
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
  return SUBJECT_PREFIX + createHash('sha256').update(key).digest('hex').slice(0, 40);
}

function liveValue<T>(record: StoredRecord, now: number): T | null {
  return record.expiresAt > now ? (record.value as T) : null;
}

function isWrongLastSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence;
}
