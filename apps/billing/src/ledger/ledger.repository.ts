import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import type { Client, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import {
  preparedStatement,
  runPipelined,
  type PipelinedStatement,
  BEGIN_WITHOUT_WAL_FLUSH,
  withPipelinedClient,
} from '@gw/platform/database';
import type { SpendingLimitPeriod } from '@gw/contracts';
import { GenerationEntity } from '../history/generation.entity';
import { SpendingWindow } from '../limits/spending-windows';
import { LedgerEntryKind } from './ledger-entry.entity';
import { ReservationContext, ReservationStatus } from './reservation.entity';

export interface HeldReservation {
  generationId: string;
  organizationId: string;
  apiKeyId: string | null;
  amount: Decimal;
  status: ReservationStatus;
  createdAt: Date;
  expiresAt: Date;
  context: ReservationContext | null;
}

export interface NewReservation {
  generationId: string;
  organizationId: string;
  apiKeyId: string | null;
  amount: Decimal;
  createdAt: Date;
  expiresAt: Date;
  context: ReservationContext | null;
}

export interface KeyLimit {
  period: SpendingLimitPeriod;
  amount: Decimal;
}

/** An API key, with the organization every statement names. */
export interface OrganizationApiKey {
  organizationId: string;
  apiKeyId: string;
}

/** A key's counter in one window, with what a batch adds to it. */
export interface CounterKey extends OrganizationApiKey {
  period: SpendingLimitPeriod;
  windowStart: Date;
}

export interface CounterValue extends CounterKey {
  held: Decimal;
  spent: Decimal;
}

export interface ExpiredReservation {
  organizationId: string;
  generationId: string;
}

export interface NewLedgerEntry {
  organizationId: string;
  kind: LedgerEntryKind;
  amount: Decimal;
  balanceAfter: Decimal;
  generationId?: string;
  idempotencyKey?: string | null;
  reason?: string | null;
}

export type NewGeneration = Omit<GenerationEntity, 'recordedAt'>;

/** A generation of an organization, as the batch statements look one up. */
export interface GenerationKey {
  organizationId: string;
  generationId: string;
}

export interface RecordedErrorCode extends GenerationKey {
  code: string | null;
}

export interface ReservationGrowth extends GenerationKey {
  by: Decimal;
  expiresAt: Date;
}

export interface ReservationMark extends GenerationKey {
  status: ReservationStatus;
}

const RESERVATION_COLUMNS = `"generation_id", "organization_id", "api_key_id", "amount", "status", "created_at", "expires_at", "context"`;

/** A column list with each column prefixed by a table alias. */
const qualified = (alias: string, columns: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * The statements one money transaction may run. Every statement names the organization; the
 * service composes them inside `LedgerRepository.transaction` and holds the rules.
 */
export interface LedgerTransaction {
  /** Creates the account at balance 0 on first use, then locks it until the transaction ends. */
  lockAccount(organizationId: string): Promise<Decimal>;
  /** The spending limits of each listed key (keys without any are absent). */
  limitsOfKeys(keys: OrganizationApiKey[]): Promise<Map<string, KeyLimit[]>>;
  /** Held and spent amounts of the listed counters; a counter never written counts zero. */
  counters(keys: CounterKey[]): Promise<CounterValue[]>;
  /** Locks the reservation row, so a settlement and the expiry sweep never both act on it. */
  findReservation(organizationId: string, generationId: string): Promise<HeldReservation | null>;
  /** Adds the deltas (negative to free) to the key's counters of the given windows, creating them at zero. */
  addToCounters(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
    held: Decimal,
    spent: Decimal,
  ): Promise<void>;
  markReservation(organizationId: string, generationId: string, status: ReservationStatus): Promise<void>;
  setBalance(organizationId: string, balance: Decimal): Promise<void>;
  appendEntry(entry: NewLedgerEntry): Promise<void>;
  findCredit(
    organizationId: string,
    idempotencyKey: string,
  ): Promise<{ amount: Decimal; balanceAfter: Decimal } | null>;
  /**
   * False when the generation is already recorded. The primary key decides, so two deliveries of
   * one event racing in two transactions serialise here and the second one sees the first's row.
   */
  recordGeneration(organizationId: string, generation: NewGeneration): Promise<boolean>;
}

/** What a batch of holds names when its transaction opens. */
export interface HoldsRequest {
  organizationIds: string[];
  /** The generations of the batch's reserves. */
  reserves: readonly GenerationKey[];
  /** The API keys of the batch's reserves, whose limits are read with the rest. */
  keys: OrganizationApiKey[];
  /** The running holds the batch extends, locked. */
  extensions: readonly GenerationKey[];
}

/** What a batch of holds is decided on: its accounts' balances, locked, and what they hold. */
export interface HoldsState extends HoldReadings {
  balances: Map<string, Decimal>;
  running: HeldReservation[];
}

/** What a batch of holds writes. */
export interface HoldsWrites {
  reservations: NewReservation[];
  /** Adds `by` to each held reservation and moves its expiry (a growing hold is a live one). */
  growths: readonly ReservationGrowth[];
  /** Amounts (each ≥ 0, at most once per counter) added to the counters, created at zero. */
  counterAdditions: CounterValue[];
}

/** A generation id that another organization's hold took meanwhile: the batch's writes were not kept. */
export class GenerationTaken extends Error {
  constructor() {
    super('A generation id of the batch already has a reservation');
  }
}

/** The reads a pipelined money transaction makes after `open`, each a round trip, where a batch needs them. */
export interface LimitReads {
  /** The spending limits of each listed key (keys without any are absent). */
  limitsOfKeys(keys: OrganizationApiKey[]): Promise<Map<string, KeyLimit[]>>;
  /** Held and spent amounts of the listed counters; a counter never written counts zero. */
  counters(keys: CounterKey[]): Promise<CounterValue[]>;
}

/**
 * The transaction of a batch of holds, in as few round trips as its statements allow (decision
 * 197): `open` begins it, locks the accounts and reads what the holds are decided on in one round
 * trip; `commit` writes them and commits in one more. Limits of keys `open` did not read and the
 * counters of limited keys take a round trip each, only where a batch has them.
 */
export interface HoldsTransaction extends LimitReads {
  open(request: HoldsRequest): Promise<HoldsState>;
  /** Writes and commits; fails with GenerationTaken, keeping nothing, when a generation id is taken. */
  commit(writes: HoldsWrites): Promise<void>;
}

/** What a settlement batch names when its transaction opens. */
export interface SettlementRequest {
  organizationIds: string[];
  /** The generations the batch settles: their holds and history rows are locked and read. */
  generations: readonly GenerationKey[];
  /** The API keys its events name, whose limits are read with the rest. */
  keys: OrganizationApiKey[];
}

/** What a settlement batch is decided on: its accounts' balances, locked, and what was read under the locks. */
export interface SettlementState {
  balances: Map<string, Decimal>;
  /** The holds of the batch's generations, locked. */
  reservations: HeldReservation[];
  /** The batch's generations already recorded, each with its error code (null: none), locked. */
  recorded: RecordedErrorCode[];
  /** What the running generations of each organization hold (absent: nothing). */
  held: Map<string, Decimal>;
  limits: Map<string, KeyLimit[]>;
}

/** What a settlement batch writes, each kind of row with one statement. */
export interface SettledRows {
  generations: readonly NewGeneration[];
  /** Recorded generations overwritten with what their late event reported. */
  replacements: readonly NewGeneration[];
  /** In the order given. */
  entries: readonly NewLedgerEntry[];
  marks: readonly ReservationMark[];
  balances: ReadonlyMap<string, Decimal>;
  /** Counters' held and spent amounts as given, created where missing. */
  counters: readonly CounterValue[];
}

/** A generation of the batch that another transaction recorded meanwhile: the batch's writes were not kept. */
export class GenerationRecorded extends Error {
  constructor() {
    super('A generation of the settlement batch was recorded meanwhile');
  }
}

/**
 * The transaction of a settlement batch, in two round trips where no key of the batch has limits
 * (decision 199): `open` begins it, locks the accounts and reads the holds, history rows, held totals
 * and limits the batch is decided on; `commit` writes every row and commits. The account locks are
 * held for those two round trips instead of the nine a statement at a time took.
 */
export interface SettlementTransaction extends LimitReads {
  open(request: SettlementRequest): Promise<SettlementState>;
  /** Writes and commits; fails with GenerationRecorded, keeping nothing, when a generation is recorded meanwhile. */
  commit(rows: SettledRows): Promise<void>;
}

@Injectable()
export class LedgerRepository {
  private readonly savedModelNames = new Map<string, string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: LedgerTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new TypeOrmLedgerTransaction(manager)));
  }

  /**
   * The transaction of a batch of holds (HoldsTransaction), on a connection of the pool's pg
   * pipeline mode; the work must end with its `commit`. Its commit does not wait for the WAL flush:
   * for holds only, which move no money. A hold lost to a crash of PostgreSQL itself (within the WAL
   * writer's delay) leaves its generation to settle without one, charged no more than the balance
   * has free (settlement rules), so the balance still never goes below zero.
   */
  holdsTransaction<T>(work: (tx: HoldsTransaction) => Promise<T>): Promise<T> {
    return this.pipelined<PipelinedHoldsTransaction, T>(
      (client) => new PipelinedHoldsTransaction(client),
      work,
    );
  }

  /**
   * The transaction of a settlement batch (SettlementTransaction), on a connection of the pool's pg
   * pipeline mode; the work must end with its `commit`, which waits for the WAL flush: it moves money.
   */
  settlementTransaction<T>(work: (tx: SettlementTransaction) => Promise<T>): Promise<T> {
    return this.pipelined<PipelinedSettlementTransaction, T>(
      (client) => new PipelinedSettlementTransaction(client),
      work,
    );
  }

  private pipelined<Tx extends PipelinedLedgerTransaction, T>(
    begin: (client: Client) => Tx,
    work: (tx: Tx) => Promise<T>,
  ): Promise<T> {
    return withPipelinedClient(this.dataSource, async (client) => {
      const tx = begin(client);
      const result = await work(tx);
      if (!tx.ended) throw new Error('A pipelined ledger transaction ended without its commit');
      return result;
    });
  }

  async balance(organizationId: string): Promise<Decimal> {
    const rows: { balance: string }[] = await this.dataSource.query(
      `SELECT "balance" FROM "billing"."accounts" WHERE "organization_id" = $1`,
      [organizationId],
    );
    return new Decimal(rows[0]?.balance ?? 0);
  }

  /**
   * Maintenance across every organization (the one query that is not tenant-scoped): holds past
   * their expiry. Each is then released in a transaction of its own that locks the account first,
   * in the order reserve and settlement use, and checks the hold again.
   */
  async expiredReservations(now: Date, batchSize: number): Promise<ExpiredReservation[]> {
    const rows: { organization_id: string; generation_id: string }[] = await this.dataSource.query(
      `SELECT "organization_id", "generation_id" FROM "billing"."reservations"
        WHERE "status" = 'held' AND "expires_at" < $1 ORDER BY "expires_at" LIMIT $2`,
      [now, batchSize],
    );
    return rows.map((row) => ({ organizationId: row.organization_id, generationId: row.generation_id }));
  }

  /** How many holds are open and what they hold together, for the metrics (the held-holds index answers it). */
  async openHolds(): Promise<{ count: number; amount: Decimal }> {
    const [row]: { count: number; amount: string }[] = await this.dataSource.query(
      `SELECT count(*)::int AS "count", COALESCE(sum("amount"), 0)::text AS "amount"
         FROM "billing"."reservations" WHERE "status" = 'held'`,
    );
    return { count: row.count, amount: new Decimal(row.amount) };
  }

  /**
   * Moves the expiry of the listed holds that are still held to one lease from now, capped by
   * their TTL from creation. Outside any money transaction: only the sweep reads `expires_at`, and
   * it checks it again under the locks. Answers how many holds were renewed.
   */
  async renewLeases(
    leases: { organizationId: string; generationId: string }[],
    now: Date,
    leaseMs: number,
    ttlMs: number,
  ): Promise<number> {
    const [, renewed]: [unknown, number] = await this.dataSource.query(RENEW_LEASES, [
      leases.map((lease) => lease.organizationId),
      leases.map((lease) => lease.generationId),
      now,
      ttlMs,
      leaseMs,
    ]);
    return renewed;
  }

  /**
   * Outside the money transaction: the row lock of an upsert would otherwise serialise every
   * settlement of one model. A name this process already wrote is not written again, which spares
   * a commit on nearly every settlement.
   */
  async saveModelName(model: string, displayName: string): Promise<void> {
    if (this.savedModelNames.get(model) === displayName) return;
    await this.dataSource.query(
      `INSERT INTO "billing"."models" ("model", "display_name") VALUES ($1, $2)
       ON CONFLICT ("model") DO UPDATE SET "display_name" = EXCLUDED."display_name"
        WHERE "models"."display_name" <> EXCLUDED."display_name"`,
      [model, displayName],
    );
    this.savedModelNames.set(model, displayName);
  }
}

/** How the batch statements key a (organization, API key) pair in their answers. */
export function keyOf(organizationId: string, apiKeyId: string): string {
  return `${organizationId}/${apiKeyId}`;
}

/** The keys of `keys` that are not among `read`: those whose limits a batch has still to read. */
export function apiKeysBesides(
  keys: readonly OrganizationApiKey[],
  read: readonly OrganizationApiKey[],
): OrganizationApiKey[] {
  const known = new Set(read.map((key) => keyOf(key.organizationId, key.apiKeyId)));
  return keys.filter((key) => !known.has(keyOf(key.organizationId, key.apiKeyId)));
}

/** The distinct API keys of the holders that have one. */
export function distinctApiKeys(
  holders: readonly { organizationId: string; apiKeyId?: string | null }[],
): OrganizationApiKey[] {
  const keys = new Map<string, OrganizationApiKey>();
  for (const { organizationId, apiKeyId } of holders) {
    if (apiKeyId !== null && apiKeyId !== undefined)
      keys.set(keyOf(organizationId, apiKeyId), { organizationId, apiKeyId });
  }
  return [...keys.values()];
}

/** How a batch keys one counter in memory. */
export function counterIdOf(c: CounterKey): string {
  return `${keyOf(c.organizationId, c.apiKeyId)}/${c.period}/${c.windowStart.toISOString()}`;
}

/** What a batch of holds reads once its accounts are locked (`HoldsTransaction.open`), in one statement. */
export interface HoldReadings {
  held: Map<string, Decimal>;
  /** By generation id. */
  existing: Map<string, { organizationId: string; amount: Decimal }>;
  limits: Map<string, KeyLimit[]>;
}

interface HeldRow {
  organization_id: string;
  total: string;
}
interface ExistingRow {
  generation_id: string;
  organization_id: string;
  amount: string;
}
interface LimitRow {
  organization_id: string;
  api_key_id: string;
  period: SpendingLimitPeriod;
  amount: string;
}

/** What the running generations of each organization hold; `first` is the number of its one parameter. */
const HELD_TOTALS = (first: number) =>
  `SELECT "organization_id", SUM("amount")::text AS "total" FROM "billing"."reservations"
    WHERE "organization_id" = ANY($${first}::uuid[]) AND "status" = 'held' GROUP BY "organization_id"`;

/** The reservations of (organization, generation) pairs given as two arrays from parameter `first` on. */
const EXISTING_RESERVATIONS = (first: number) =>
  `SELECT r."generation_id", r."organization_id", r."amount"::text AS "amount" FROM "billing"."reservations" r
     JOIN unnest($${first}::uuid[], $${first + 1}::text[]) AS q("organization_id", "generation_id")
       ON r."organization_id" = q."organization_id" AND r."generation_id" = q."generation_id"`;

/** The spending limits of (organization, key) pairs given as two arrays from parameter `first` on. */
const LIMITS_OF_KEYS = (first: number) =>
  `SELECT l."organization_id", l."api_key_id", l."period", l."amount"::text AS "amount"
     FROM "billing"."spending_limits" l
     JOIN unnest($${first}::uuid[], $${first + 1}::uuid[]) AS k("organization_id", "api_key_id")
       ON l."organization_id" = k."organization_id" AND l."api_key_id" = k."api_key_id"`;

// The statements of a chat's hold and settlement, each parsed and planned once per connection (decision 194).
/** Inserts counters, or sets an existing one's held and spent to the given expressions. */
const UPSERT_COUNTERS = (held: string, spent: string) =>
  `INSERT INTO "billing"."spending_counters" AS c
         ("organization_id", "api_key_id", "period", "window_start", "held", "spent")
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::numeric[], $6::numeric[])
       ON CONFLICT ("organization_id", "api_key_id", "period", "window_start") DO UPDATE
         SET "held" = ${held}, "spent" = ${spent}`;
const ADD_TO_COUNTERS = preparedStatement(
  UPSERT_COUNTERS(`c."held" + EXCLUDED."held"`, `c."spent" + EXCLUDED."spent"`),
);
const SET_COUNTERS = preparedStatement(UPSERT_COUNTERS(`EXCLUDED."held"`, `EXCLUDED."spent"`));
const HELD_TOTALS_ALONE = preparedStatement(HELD_TOTALS(1));
const LIMITS_OF_KEYS_ALONE = preparedStatement(LIMITS_OF_KEYS(1));

/** The accounts of a batch, locked in id order (ORDER BY under FOR UPDATE locks the rows in that order). */
const ACCOUNTS_FOR_UPDATE = preparedStatement(
  `SELECT "organization_id", "balance" FROM "billing"."accounts"
        WHERE "organization_id" = ANY($1::uuid[]) ORDER BY "organization_id" FOR UPDATE`,
);

/** Three reads in one round trip: each its own subquery, as JSON, amounts as text so that none loses a digit. */
const HOLD_READINGS = preparedStatement(
  `SELECT (SELECT COALESCE(json_agg(h), '[]') FROM (${HELD_TOTALS(1)}) h) AS "held",
              (SELECT COALESCE(json_agg(e), '[]') FROM (${EXISTING_RESERVATIONS(2)}) e) AS "existing",
              (SELECT COALESCE(json_agg(l), '[]') FROM (${LIMITS_OF_KEYS(4)}) l) AS "limits"`,
);

/** The counters of keys with limits in their windows, zero where none was written yet. */
const COUNTERS = preparedStatement(
  `SELECT k."organization_id", k."api_key_id", k."period", k."window_start",
              COALESCE(c."held", 0) AS "held", COALESCE(c."spent", 0) AS "spent"
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[])
           AS k("organization_id", "api_key_id", "period", "window_start")
         LEFT JOIN "billing"."spending_counters" c
           ON c."organization_id" = k."organization_id" AND c."api_key_id" = k."api_key_id"
          AND c."period" = k."period" AND c."window_start" = k."window_start"`,
);

/** Every account of a batch's new balance. */
const SET_BALANCES = preparedStatement(
  `UPDATE "billing"."accounts" AS a SET "balance" = b."balance", "updated_at" = now()
         FROM unnest($1::uuid[], $2::numeric[]) AS b("organization_id", "balance")
        WHERE a."organization_id" = b."organization_id"`,
);

/**
 * New holds. A generation id that already has one fails the statement (its primary key), so that
 * the COMMIT sent with it keeps nothing of the batch (decision 197).
 */
const INSERT_RESERVATIONS = preparedStatement(
  `INSERT INTO "billing"."reservations" (${RESERVATION_COLUMNS})
       SELECT r."generation_id", r."organization_id", r."api_key_id", r."amount", 'held', r."created_at", r."expires_at", r."context"
         FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::numeric[], $5::timestamptz[], $6::timestamptz[], $7::jsonb[])
           AS r("generation_id", "organization_id", "api_key_id", "amount", "created_at", "expires_at", "context")`,
);
const UNIQUE_VIOLATION = '23505';
const RESERVATIONS_PRIMARY_KEY = 'reservations_pkey';

/** First use of organizations: the insert may race another one, hence DO NOTHING and a second look. */
const INSERT_ACCOUNTS = `INSERT INTO "billing"."accounts" ("organization_id")
       SELECT id FROM unnest($1::uuid[]) AS a(id) ORDER BY id ON CONFLICT ("organization_id") DO NOTHING`;

/** The holds of (organization, generation) pairs, locked. */
const RESERVATIONS_FOR_UPDATE = preparedStatement(
  `SELECT ${qualified('r', RESERVATION_COLUMNS)} FROM "billing"."reservations" r
         JOIN unnest($1::uuid[], $2::text[]) AS k("organization_id", "generation_id")
           ON r."organization_id" = k."organization_id" AND r."generation_id" = k."generation_id"
          FOR UPDATE OF r`,
);

/** Holds' new statuses. */
const MARK_RESERVATIONS = preparedStatement(
  `UPDATE "billing"."reservations" AS r SET "status" = m."status"
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS m("organization_id", "generation_id", "status")
        WHERE r."organization_id" = m."organization_id" AND r."generation_id" = m."generation_id"`,
);

/** What running holds grow by, with their new expiry. */
const GROW_RESERVATIONS = preparedStatement(
  `UPDATE "billing"."reservations" AS r SET "amount" = r."amount" + g."by", "expires_at" = g."expires_at"
         FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::timestamptz[])
           AS g("organization_id", "generation_id", "by", "expires_at")
        WHERE r."organization_id" = g."organization_id" AND r."generation_id" = g."generation_id"
          AND r."status" = 'held'`,
);

/** A batch's ledger entries. */
const APPEND_ENTRIES = preparedStatement(
  `INSERT INTO "billing"."ledger_entries"
         ("organization_id", "kind", "amount", "balance_after", "generation_id", "idempotency_key", "reason")
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[], $5::text[], $6::text[], $7::text[])`,
);

/** History's columns, each with the field of NewGeneration it holds and the type that field is read as from JSON. */
const GENERATION_COLUMNS: readonly [column: string, field: keyof NewGeneration, type: string][] = [
  ['id', 'id', 'text'],
  ['organization_id', 'organizationId', 'uuid'],
  ['api_key_id', 'apiKeyId', 'uuid'],
  ['api_key_name', 'apiKeyName', 'text'],
  ['api_key_short', 'apiKeyShort', 'text'],
  ['user_id', 'userId', 'uuid'],
  ['model', 'model', 'text'],
  ['request_type', 'requestType', 'text'],
  ['api_type', 'apiType', 'text'],
  ['response_mode', 'responseMode', 'text'],
  ['status', 'status', 'text'],
  ['list_status', 'listStatus', 'text'],
  ['finish_reason', 'finishReason', 'text'],
  ['provider', 'provider', 'text'],
  ['usage', 'usage', 'jsonb'],
  ['cost', 'cost', 'numeric'],
  ['client_cost', 'clientCost', 'numeric'],
  ['generation_time_ms', 'generationTimeMs', 'integer'],
  ['latency_ms', 'latencyMs', 'integer'],
  ['queue_time_ms', 'queueTimeMs', 'integer'],
  ['attempts_count', 'attemptsCount', 'integer'],
  ['is_cancelled', 'isCancelled', 'boolean'],
  ['error', 'error', 'jsonb'],
  ['created_at', 'createdAt', 'timestamptz'],
  ['completed_at', 'completedAt', 'timestamptz'],
];

/** History rows given as one JSON parameter, so that a statement's text is the same for every batch size. */
const GENERATION_RECORDS = `jsonb_to_recordset($1::jsonb) AS g(${GENERATION_COLUMNS.map(([, field, type]) => `"${field}" ${type}`).join(', ')})`;
const INSERT_GENERATION_RECORDS = `INSERT INTO "billing"."generations" (${GENERATION_COLUMNS.map(([column]) => `"${column}"`).join(', ')})
       SELECT ${GENERATION_COLUMNS.map(([, field]) => `"${field}"`).join(', ')} FROM ${GENERATION_RECORDS}`;

/** A generation's history row, unless one is recorded already: answers the id it inserted. */
const RECORD_GENERATIONS = preparedStatement(
  `${INSERT_GENERATION_RECORDS} ON CONFLICT DO NOTHING RETURNING "id"`,
);

/**
 * A settlement batch's history rows. A generation already recorded fails the statement (its
 * primary key), so that the COMMIT sent with it keeps nothing of the batch (decision 199).
 */
const INSERT_GENERATIONS = preparedStatement(INSERT_GENERATION_RECORDS);
const GENERATIONS_PRIMARY_KEY = 'generations_pkey';

/** Recorded generations overwritten with what their late events reported; the id and organization never change. */
const REPLACE_GENERATIONS = preparedStatement(
  `UPDATE "billing"."generations" AS h
      SET ${GENERATION_COLUMNS.filter(([, field]) => field !== 'id' && field !== 'organizationId')
        .map(([column, field]) => `"${column}" = g."${field}"`)
        .join(', ')}
     FROM ${GENERATION_RECORDS}
    WHERE h."organization_id" = g."organizationId" AND h."id" = g."id"`,
);

/** The recorded generations among (organization, generation) pairs with their error codes, locked. */
const RECORDED_ERROR_CODES = preparedStatement(
  `SELECT g."organization_id", g."id", g."error"->>'code' AS "code" FROM "billing"."generations" g
         JOIN unnest($1::uuid[], $2::text[]) AS k("organization_id", "id")
           ON g."organization_id" = k."organization_id" AND g."id" = k."id"
          FOR UPDATE OF g`,
);

/** Moves held holds' expiry to one lease from now, capped by their TTL from creation. */
const RENEW_LEASES = preparedStatement(
  `UPDATE "billing"."reservations" AS r
          SET "expires_at" = LEAST(r."created_at" + $4 * INTERVAL '1 millisecond', $3::timestamptz + $5 * INTERVAL '1 millisecond')
         FROM unnest($1::uuid[], $2::text[]) AS l("organization_id", "generation_id")
        WHERE r."organization_id" = l."organization_id" AND r."generation_id" = l."generation_id"
          AND r."status" = 'held'`,
);

function heldOf(rows: HeldRow[]): Map<string, Decimal> {
  return new Map(rows.map((row) => [row.organization_id, new Decimal(row.total)]));
}

function limitsOf(rows: LimitRow[]): Map<string, KeyLimit[]> {
  const limits = new Map<string, KeyLimit[]>();
  for (const row of rows) {
    const key = keyOf(row.organization_id, row.api_key_id);
    const list = limits.get(key) ?? [];
    list.push({ period: row.period, amount: new Decimal(row.amount) });
    limits.set(key, list);
  }
  return limits;
}

interface ReservationRow {
  generation_id: string;
  organization_id: string;
  api_key_id: string | null;
  amount: string;
  status: ReservationStatus;
  created_at: Date;
  expires_at: Date;
  context: ReservationContext | null;
}

interface CounterRow {
  organization_id: string;
  api_key_id: string;
  period: SpendingLimitPeriod;
  window_start: Date;
  held: string;
  spent: string;
}

interface AccountRow {
  organization_id: string;
  balance: string;
}

interface ReadingsRow {
  held: HeldRow[];
  existing: ExistingRow[];
  limits: LimitRow[];
}

function balancesOf(rows: AccountRow[]): Map<string, Decimal> {
  return new Map(rows.map((row) => [row.organization_id, new Decimal(row.balance)]));
}

function holdReadingsOf(row: ReadingsRow): HoldReadings {
  return {
    held: heldOf(row.held),
    existing: new Map(
      row.existing.map((r) => [
        r.generation_id,
        { organizationId: r.organization_id, amount: new Decimal(r.amount) },
      ]),
    ),
    limits: limitsOf(row.limits),
  };
}

function reservationOf(row: ReservationRow): HeldReservation {
  return {
    generationId: row.generation_id,
    organizationId: row.organization_id,
    apiKeyId: row.api_key_id,
    amount: new Decimal(row.amount),
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    context: row.context,
  };
}

interface RecordedRow {
  organization_id: string;
  id: string;
  code: string | null;
}

function recordedErrorCodeOf(row: RecordedRow): RecordedErrorCode {
  return { organizationId: row.organization_id, generationId: row.id, code: row.code };
}

function counterValueOf(row: CounterRow): CounterValue {
  return {
    organizationId: row.organization_id,
    apiKeyId: row.api_key_id,
    period: row.period,
    windowStart: row.window_start,
    held: new Decimal(row.held),
    spent: new Decimal(row.spent),
  };
}

const generationKeyParams = (keys: readonly GenerationKey[]) => [
  keys.map((k) => k.organizationId),
  keys.map((k) => k.generationId),
];
const apiKeyParams = (keys: readonly OrganizationApiKey[]) => [
  keys.map((k) => k.organizationId),
  keys.map((k) => k.apiKeyId),
];
const counterKeyParams = (keys: readonly CounterKey[]) => [
  ...apiKeyParams(keys),
  keys.map((k) => k.period),
  keys.map((k) => k.windowStart),
];
const counterRowParams = (rows: readonly CounterValue[]) => [
  ...counterKeyParams(rows),
  rows.map((r) => r.held.toFixed()),
  rows.map((r) => r.spent.toFixed()),
];
const entryParams = (entries: readonly NewLedgerEntry[]) => [
  entries.map((e) => e.organizationId),
  entries.map((e) => e.kind),
  entries.map((e) => e.amount.toFixed()),
  entries.map((e) => e.balanceAfter.toFixed()),
  entries.map((e) => e.generationId ?? null),
  entries.map((e) => e.idempotencyKey ?? null),
  entries.map((e) => e.reason ?? null),
];
const markParams = (marks: readonly ReservationMark[]) => [
  ...generationKeyParams(marks),
  marks.map((m) => m.status),
];
const balanceParams = (balances: ReadonlyMap<string, Decimal>) => [
  [...balances.keys()],
  [...balances.values()].map((balance) => balance.toFixed()),
];

/**
 * A money transaction on a connection in pg's pipeline mode (decisions 197 and 199): its first round
 * trip begins it, locks its accounts and runs its readings, each statement after the one before it on
 * the server, so that the readings take their snapshot once the locks are held; its last one writes
 * and commits, and a failure among the writes turns the COMMIT into a rollback.
 */
abstract class PipelinedLedgerTransaction {
  /** Its last round was answered: it committed, or a failure among its writes rolled it back. */
  ended = false;

  constructor(protected readonly client: Client) {}

  async limitsOfKeys(keys: OrganizationApiKey[]): Promise<Map<string, KeyLimit[]>> {
    if (keys.length === 0) return new Map();
    return limitsOf((await this.client.query<LimitRow>(LIMITS_OF_KEYS_ALONE, apiKeyParams(keys))).rows);
  }

  async counters(keys: CounterKey[]): Promise<CounterValue[]> {
    if (keys.length === 0) return [];
    return (await this.client.query<CounterRow>(COUNTERS, counterKeyParams(keys))).rows.map(counterValueOf);
  }

  /** Begins, locks the accounts of `organizationIds` in id order and answers their balances and the readings. */
  protected async lockAndRead(
    begin: string,
    organizationIds: string[],
    readings: PipelinedStatement[],
  ): Promise<{ balances: Map<string, Decimal>; read: QueryResult[] }> {
    const ids = [...new Set(organizationIds)].sort();
    const [, locked, ...read] = await runPipelined(this.client, [
      { text: begin },
      { text: ACCOUNTS_FOR_UPDATE, values: [ids] },
      ...readings,
    ]);
    const balances = balancesOf(locked.rows as AccountRow[]);
    const missing = ids.filter((id) => !balances.has(id));
    if (missing.length === 0) return { balances, read };
    // Accounts made on first use are locked after the rest, and the readings are read again once they are.
    await this.client.query(INSERT_ACCOUNTS, [missing]);
    const lockedLater = await this.client.query<AccountRow>(ACCOUNTS_FOR_UPDATE, [missing]);
    for (const [id, balance] of balancesOf(lockedLater.rows)) balances.set(id, balance);
    return { balances, read: await runPipelined(this.client, readings) };
  }

  /** Writes and commits; a unique violation of `primaryKey` fails with `taken()`, the rest as they came. */
  protected async writeAndCommit(
    writes: PipelinedStatement[],
    primaryKey: string,
    taken: () => Error,
  ): Promise<void> {
    try {
      await runPipelined(this.client, [...writes, { text: 'COMMIT' }]);
    } catch (error) {
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code !== UNIQUE_VIOLATION || constraint !== primaryKey) throw error;
      this.ended = true;
      throw taken();
    }
    this.ended = true;
  }
}

/**
 * A batch of holds (decision 197): BEGIN, the account locks, the running holds it extends and the
 * readings in one round trip; the inserts, growths, counter additions and COMMIT in another.
 */
class PipelinedHoldsTransaction extends PipelinedLedgerTransaction implements HoldsTransaction {
  async open(request: HoldsRequest): Promise<HoldsState> {
    const extending = request.extensions.length > 0;
    const { balances, read } = await this.lockAndRead(BEGIN_WITHOUT_WAL_FLUSH, request.organizationIds, [
      ...(extending
        ? [{ text: RESERVATIONS_FOR_UPDATE, values: generationKeyParams(request.extensions) }]
        : []),
      {
        text: HOLD_READINGS,
        values: [
          request.organizationIds,
          ...generationKeyParams(request.reserves),
          ...apiKeyParams(request.keys),
        ],
      },
    ]);
    const running = extending ? (read[0].rows as ReservationRow[]).map(reservationOf) : [];
    return { balances, running, ...holdReadingsOf(read[read.length - 1].rows[0] as ReadingsRow) };
  }

  commit({ reservations, growths, counterAdditions }: HoldsWrites): Promise<void> {
    const writes: PipelinedStatement[] = [];
    if (reservations.length > 0) {
      writes.push({
        text: INSERT_RESERVATIONS,
        values: [
          reservations.map((r) => r.generationId),
          reservations.map((r) => r.organizationId),
          reservations.map((r) => r.apiKeyId),
          reservations.map((r) => r.amount.toFixed()),
          reservations.map((r) => r.createdAt),
          reservations.map((r) => r.expiresAt),
          reservations.map((r) => (r.context === null ? null : JSON.stringify(r.context))),
        ],
      });
    }
    if (growths.length > 0) {
      writes.push({
        text: GROW_RESERVATIONS,
        values: [
          ...generationKeyParams(growths),
          growths.map((g) => g.by.toFixed()),
          growths.map((g) => g.expiresAt),
        ],
      });
    }
    if (counterAdditions.length > 0)
      writes.push({ text: ADD_TO_COUNTERS, values: counterRowParams(counterAdditions) });
    return this.writeAndCommit(writes, RESERVATIONS_PRIMARY_KEY, () => new GenerationTaken());
  }
}

/**
 * A settlement batch (decision 199): BEGIN, the account locks, the holds and history rows of its
 * generations (locked), the held totals and the limits of its keys in one round trip; the history
 * rows, ledger entries, hold statuses, balances, counters and COMMIT in another.
 */
class PipelinedSettlementTransaction extends PipelinedLedgerTransaction implements SettlementTransaction {
  async open(request: SettlementRequest): Promise<SettlementState> {
    const generations = generationKeyParams(request.generations);
    const { balances, read } = await this.lockAndRead('BEGIN', request.organizationIds, [
      { text: RESERVATIONS_FOR_UPDATE, values: generations },
      { text: RECORDED_ERROR_CODES, values: generations },
      { text: HELD_TOTALS_ALONE, values: [request.organizationIds] },
      { text: LIMITS_OF_KEYS_ALONE, values: apiKeyParams(request.keys) },
    ]);
    const [reservations, recorded, held, limits] = read;
    return {
      balances,
      reservations: (reservations.rows as ReservationRow[]).map(reservationOf),
      recorded: (recorded.rows as RecordedRow[]).map(recordedErrorCodeOf),
      held: heldOf(held.rows as HeldRow[]),
      limits: limitsOf(limits.rows as LimitRow[]),
    };
  }

  commit(rows: SettledRows): Promise<void> {
    const writes: PipelinedStatement[] = [];
    if (rows.generations.length > 0)
      writes.push({ text: INSERT_GENERATIONS, values: [JSON.stringify(rows.generations)] });
    if (rows.replacements.length > 0)
      writes.push({ text: REPLACE_GENERATIONS, values: [JSON.stringify(rows.replacements)] });
    if (rows.entries.length > 0) writes.push({ text: APPEND_ENTRIES, values: entryParams(rows.entries) });
    if (rows.marks.length > 0) writes.push({ text: MARK_RESERVATIONS, values: markParams(rows.marks) });
    if (rows.balances.size > 0) writes.push({ text: SET_BALANCES, values: balanceParams(rows.balances) });
    if (rows.counters.length > 0)
      writes.push({ text: SET_COUNTERS, values: counterRowParams(rows.counters) });
    return this.writeAndCommit(writes, GENERATIONS_PRIMARY_KEY, () => new GenerationRecorded());
  }
}

/** Exported so that a repository of its own can run the ledger's statements in its transactions. */
export class TypeOrmLedgerTransaction implements LedgerTransaction {
  constructor(private readonly manager: EntityManager) {}

  async lockAccount(organizationId: string): Promise<Decimal> {
    const locked = await this.selectAccountForUpdate(organizationId);
    if (locked) return locked;
    // First use of the organization: the insert may race another one, hence DO NOTHING and a second look.
    await this.manager.query(
      `INSERT INTO "billing"."accounts" ("organization_id") VALUES ($1) ON CONFLICT ("organization_id") DO NOTHING`,
      [organizationId],
    );
    return (await this.selectAccountForUpdate(organizationId)) as Decimal;
  }

  private async selectAccountForUpdate(organizationId: string): Promise<Decimal | null> {
    const rows: { balance: string }[] = await this.manager.query(
      `SELECT "balance" FROM "billing"."accounts" WHERE "organization_id" = $1 FOR UPDATE`,
      [organizationId],
    );
    return rows.length > 0 ? new Decimal(rows[0].balance) : null;
  }

  async limitsOfKeys(keys: OrganizationApiKey[]): Promise<Map<string, KeyLimit[]>> {
    if (keys.length === 0) return new Map();
    return limitsOf(await this.manager.query(LIMITS_OF_KEYS_ALONE, apiKeyParams(keys)));
  }

  async counters(keys: CounterKey[]): Promise<CounterValue[]> {
    if (keys.length === 0) return [];
    const rows: CounterRow[] = await this.manager.query(COUNTERS, counterKeyParams(keys));
    return rows.map(counterValueOf);
  }

  async findReservation(organizationId: string, generationId: string): Promise<HeldReservation | null> {
    const rows: ReservationRow[] = await this.manager.query(
      RESERVATIONS_FOR_UPDATE,
      generationKeyParams([{ organizationId, generationId }]),
    );
    return rows.length > 0 ? reservationOf(rows[0]) : null;
  }

  async addToCounters(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
    held: Decimal,
    spent: Decimal,
  ): Promise<void> {
    // GREATEST keeps a counter at zero when a hold made before counters existed is freed.
    await this.manager.query(
      `INSERT INTO "billing"."spending_counters" AS c
         ("organization_id", "api_key_id", "period", "window_start", "held", "spent")
       SELECT $1, $2, w."period", w."window_start", GREATEST($5::numeric, 0), GREATEST($6::numeric, 0)
         FROM unnest($3::text[], $4::timestamptz[]) AS w("period", "window_start")
       ON CONFLICT ("organization_id", "api_key_id", "period", "window_start") DO UPDATE
         SET "held" = GREATEST(c."held" + $5::numeric, 0), "spent" = GREATEST(c."spent" + $6::numeric, 0)`,
      [
        organizationId,
        apiKeyId,
        windows.map((w) => w.period),
        windows.map((w) => w.start),
        held.toFixed(),
        spent.toFixed(),
      ],
    );
  }

  async markReservation(
    organizationId: string,
    generationId: string,
    status: ReservationStatus,
  ): Promise<void> {
    await this.manager.query(MARK_RESERVATIONS, markParams([{ organizationId, generationId, status }]));
  }

  async setBalance(organizationId: string, balance: Decimal): Promise<void> {
    await this.manager.query(
      `UPDATE "billing"."accounts" SET "balance" = $2, "updated_at" = now() WHERE "organization_id" = $1`,
      [organizationId, balance.toFixed()],
    );
  }

  async appendEntry(entry: NewLedgerEntry): Promise<void> {
    await this.manager.query(APPEND_ENTRIES, entryParams([entry]));
  }

  async findCredit(
    organizationId: string,
    idempotencyKey: string,
  ): Promise<{ amount: Decimal; balanceAfter: Decimal } | null> {
    const rows: { amount: string; balance_after: string }[] = await this.manager.query(
      `SELECT "amount", "balance_after" FROM "billing"."ledger_entries"
        WHERE "organization_id" = $1 AND "idempotency_key" = $2 AND "kind" = 'credit'`,
      [organizationId, idempotencyKey],
    );
    const row = rows[0];
    return row ? { amount: new Decimal(row.amount), balanceAfter: new Decimal(row.balance_after) } : null;
  }

  async recordGeneration(organizationId: string, generation: NewGeneration): Promise<boolean> {
    const rows: { id: string }[] = await this.manager.query(RECORD_GENERATIONS, [
      JSON.stringify([{ ...generation, organizationId }]),
    ]);
    return rows.length > 0;
  }
}
