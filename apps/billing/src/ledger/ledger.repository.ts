import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
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

export interface WindowSpending {
  period: SpendingLimitPeriod;
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

const RESERVATION_COLUMNS = `"generation_id", "organization_id", "api_key_id", "amount", "status", "created_at", "expires_at", "context"`;

/** Everything an event reports; the id and organization of a recorded generation never change. */
const REPLACEABLE_GENERATION_FIELDS: (keyof NewGeneration)[] = [
  'apiKeyId',
  'apiKeyName',
  'apiKeyShort',
  'userId',
  'model',
  'requestType',
  'apiType',
  'responseMode',
  'status',
  'listStatus',
  'finishReason',
  'provider',
  'usage',
  'cost',
  'clientCost',
  'generationTimeMs',
  'latencyMs',
  'queueTimeMs',
  'attemptsCount',
  'isCancelled',
  'error',
  'createdAt',
  'completedAt',
];

/**
 * The statements one money transaction may run. Every statement names the organization; the
 * service composes them inside `LedgerRepository.transaction` and holds the rules.
 */
export interface LedgerTransaction {
  /** Creates the account at balance 0 on first use, then locks it until the transaction ends. */
  lockAccount(organizationId: string): Promise<Decimal>;
  heldTotal(organizationId: string): Promise<Decimal>;
  /** What the organization's running generations hold, and the amount of this generation's reservation if it has one. */
  holdsBeforeReserve(
    organizationId: string,
    generationId: string,
  ): Promise<{ held: Decimal; existing: Decimal | null }>;
  /** Locks the reservation row, so a settlement and the expiry sweep never both act on it. */
  findReservation(organizationId: string, generationId: string): Promise<HeldReservation | null>;
  /** The spending limits of one key, read under the account lock that every reserve takes first. */
  keyLimits(organizationId: string, apiKeyId: string): Promise<KeyLimit[]>;
  /** Held and spent amounts of the key in the given windows; a window never written counts zero. */
  windowSpending(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
  ): Promise<WindowSpending[]>;
  /** Adds the deltas (negative to free) to the key's counters of the given windows, creating them at zero. */
  addToCounters(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
    held: Decimal,
    spent: Decimal,
  ): Promise<void>;
  /** False when the generation id already has a reservation (of any organization). */
  insertReservation(reservation: NewReservation): Promise<boolean>;
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
  /** The error code of a recorded generation (null when it has none), or undefined when none is recorded; locks the row. */
  recordedErrorCode(organizationId: string, id: string): Promise<string | null | undefined>;
  /** Overwrites a recorded generation with what its late event reported. */
  replaceGeneration(organizationId: string, generation: NewGeneration): Promise<void>;
}

@Injectable()
export class LedgerRepository {
  private readonly savedModelNames = new Map<string, string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: LedgerTransaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new TypeOrmLedgerTransaction(manager)));
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
    const [, renewed]: [unknown, number] = await this.dataSource.query(
      `UPDATE "billing"."reservations" AS r
          SET "expires_at" = LEAST(r."created_at" + $4 * INTERVAL '1 millisecond', $3::timestamptz + $5 * INTERVAL '1 millisecond')
         FROM unnest($1::uuid[], $2::text[]) AS l("organization_id", "generation_id")
        WHERE r."organization_id" = l."organization_id" AND r."generation_id" = l."generation_id"
          AND r."status" = 'held'`,
      [
        leases.map((lease) => lease.organizationId),
        leases.map((lease) => lease.generationId),
        now,
        ttlMs,
        leaseMs,
      ],
    );
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

  async heldTotal(organizationId: string): Promise<Decimal> {
    const rows: { total: string }[] = await this.manager.query(
      `SELECT COALESCE(SUM("amount"), 0) AS "total" FROM "billing"."reservations"
        WHERE "organization_id" = $1 AND "status" = 'held'`,
      [organizationId],
    );
    return new Decimal(rows[0].total);
  }

  async holdsBeforeReserve(
    organizationId: string,
    generationId: string,
  ): Promise<{ held: Decimal; existing: Decimal | null }> {
    const rows: { held: string; existing: string | null }[] = await this.manager.query(
      `SELECT
         (SELECT COALESCE(SUM("amount"), 0) FROM "billing"."reservations"
           WHERE "organization_id" = $1 AND "status" = 'held') AS "held",
         (SELECT "amount" FROM "billing"."reservations"
           WHERE "organization_id" = $1 AND "generation_id" = $2) AS "existing"`,
      [organizationId, generationId],
    );
    const row = rows[0];
    return {
      held: new Decimal(row.held),
      existing: row.existing === null ? null : new Decimal(row.existing),
    };
  }

  async findReservation(organizationId: string, generationId: string): Promise<HeldReservation | null> {
    const rows: {
      generation_id: string;
      organization_id: string;
      api_key_id: string | null;
      amount: string;
      status: ReservationStatus;
      created_at: Date;
      expires_at: Date;
      context: ReservationContext | null;
    }[] = await this.manager.query(
      `SELECT ${RESERVATION_COLUMNS} FROM "billing"."reservations"
          WHERE "organization_id" = $1 AND "generation_id" = $2 FOR UPDATE`,
      [organizationId, generationId],
    );
    const row = rows[0];
    if (!row) return null;
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

  async keyLimits(organizationId: string, apiKeyId: string): Promise<KeyLimit[]> {
    const rows: { period: SpendingLimitPeriod; amount: string }[] = await this.manager.query(
      `SELECT "period", "amount" FROM "billing"."spending_limits" WHERE "organization_id" = $1 AND "api_key_id" = $2`,
      [organizationId, apiKeyId],
    );
    return rows.map((row) => ({ period: row.period, amount: new Decimal(row.amount) }));
  }

  async windowSpending(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
  ): Promise<WindowSpending[]> {
    const rows: { period: SpendingLimitPeriod; held: string; spent: string }[] = await this.manager.query(
      `SELECT w."period", COALESCE(c."held", 0) AS "held", COALESCE(c."spent", 0) AS "spent"
         FROM unnest($3::text[], $4::timestamptz[]) AS w("period", "window_start")
         LEFT JOIN "billing"."spending_counters" c
           ON c."organization_id" = $1 AND c."api_key_id" = $2
          AND c."period" = w."period" AND c."window_start" = w."window_start"`,
      [organizationId, apiKeyId, windows.map((w) => w.period), windows.map((w) => w.start)],
    );
    return rows.map((row) => ({
      period: row.period,
      held: new Decimal(row.held),
      spent: new Decimal(row.spent),
    }));
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

  async insertReservation(r: NewReservation): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `INSERT INTO "billing"."reservations" (${RESERVATION_COLUMNS})
       VALUES ($1, $2, $3, $4, 'held', $5, $6, $7)
       ON CONFLICT ("generation_id") DO NOTHING RETURNING "generation_id"`,
      [r.generationId, r.organizationId, r.apiKeyId, r.amount.toFixed(), r.createdAt, r.expiresAt, r.context],
    );
    return rows.length > 0;
  }

  async markReservation(
    organizationId: string,
    generationId: string,
    status: ReservationStatus,
  ): Promise<void> {
    await this.manager.query(
      `UPDATE "billing"."reservations" SET "status" = $3 WHERE "organization_id" = $1 AND "generation_id" = $2`,
      [organizationId, generationId, status],
    );
  }

  async setBalance(organizationId: string, balance: Decimal): Promise<void> {
    await this.manager.query(
      `UPDATE "billing"."accounts" SET "balance" = $2, "updated_at" = now() WHERE "organization_id" = $1`,
      [organizationId, balance.toFixed()],
    );
  }

  async appendEntry(e: NewLedgerEntry): Promise<void> {
    await this.manager.query(
      `INSERT INTO "billing"."ledger_entries"
         ("organization_id", "kind", "amount", "balance_after", "generation_id", "idempotency_key", "reason")
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        e.organizationId,
        e.kind,
        e.amount.toFixed(),
        e.balanceAfter.toFixed(),
        e.generationId ?? null,
        e.idempotencyKey ?? null,
        e.reason ?? null,
      ],
    );
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
    const result = await this.manager
      .createQueryBuilder()
      .insert()
      .into(GenerationEntity)
      .values({ ...generation, organizationId })
      .orIgnore()
      .returning(['id'])
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  async recordedErrorCode(organizationId: string, id: string): Promise<string | null | undefined> {
    const rows: { code: string | null }[] = await this.manager.query(
      `SELECT "error"->>'code' AS "code" FROM "billing"."generations"
        WHERE "organization_id" = $1 AND "id" = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows.length === 0 ? undefined : rows[0].code;
  }

  async replaceGeneration(organizationId: string, generation: NewGeneration): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .update(GenerationEntity)
      .set(Object.fromEntries(REPLACEABLE_GENERATION_FIELDS.map((field) => [field, generation[field]])))
      .where('organization_id = :organizationId AND id = :id', { organizationId, id: generation.id })
      .execute();
  }
}
