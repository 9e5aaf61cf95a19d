import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { DataSource, EntityManager } from 'typeorm';
import type { GenerationError, HistoryListStatus } from '@gw/contracts';
import { preparedStatement } from '@gw/platform/database';
import { type GenerationKey, LedgerTransaction, TypeOrmLedgerTransaction } from '../ledger/ledger.repository';

/** What a refund needs to know of a recorded generation. */
export interface RecordedCharge {
  listStatus: HistoryListStatus;
  clientCost: Decimal;
  apiKeyId: string | null;
  createdAt: Date;
  errorCode: string | null;
}

/** The statements on undelivered generations, run in the same transaction as the ledger's. */
export interface UndeliveredTransaction {
  /** False when the generation was already reported. */
  insertReport(organizationId: string, generationId: string, reason: string): Promise<boolean>;
  /** The reason the gateway reported, or null when it reported nothing for this generation. */
  findReport(organizationId: string, generationId: string): Promise<string | null>;
  /** Locks the recorded generation, in the order settlement uses (account, reservation, then this row). */
  lockGeneration(organizationId: string, generationId: string): Promise<RecordedCharge | null>;
  /** Records the generation as failed with the reason and nothing charged. */
  markUndelivered(organizationId: string, generationId: string, error: GenerationError): Promise<void>;
}

/** The reported generations among (organization, generation) pairs: every settlement batch asks (decision 194). */
const REPORTED_AMONG = preparedStatement(
  `SELECT u."organization_id", u."generation_id" FROM "billing"."undelivered_generations" u
     JOIN unnest($1::uuid[], $2::text[]) AS k("organization_id", "generation_id")
       ON u."organization_id" = k."organization_id" AND u."generation_id" = k."generation_id"`,
);

@Injectable()
export class UndeliveredGenerationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(
    work: (ledger: LedgerTransaction, undelivered: UndeliveredTransaction) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction((manager) =>
      work(new TypeOrmLedgerTransaction(manager), new TypeOrmUndeliveredTransaction(manager)),
    );
  }

  /** Outside any transaction: the one extra look settlement takes per batch, by primary key. */
  async reportedAmong(keys: readonly GenerationKey[]): Promise<GenerationKey[]> {
    if (keys.length === 0) return [];
    const rows: { organization_id: string; generation_id: string }[] = await this.dataSource.query(
      REPORTED_AMONG,
      [keys.map((k) => k.organizationId), keys.map((k) => k.generationId)],
    );
    return rows.map((row) => ({ organizationId: row.organization_id, generationId: row.generation_id }));
  }
}

class TypeOrmUndeliveredTransaction implements UndeliveredTransaction {
  constructor(private readonly manager: EntityManager) {}

  async insertReport(organizationId: string, generationId: string, reason: string): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `INSERT INTO "billing"."undelivered_generations" ("generation_id", "organization_id", "reason")
       VALUES ($1, $2, $3) ON CONFLICT ("generation_id") DO NOTHING RETURNING "generation_id"`,
      [generationId, organizationId, reason],
    );
    return rows.length > 0;
  }

  async findReport(organizationId: string, generationId: string): Promise<string | null> {
    const rows: { reason: string }[] = await this.manager.query(
      `SELECT "reason" FROM "billing"."undelivered_generations" WHERE "organization_id" = $1 AND "generation_id" = $2`,
      [organizationId, generationId],
    );
    return rows[0]?.reason ?? null;
  }

  async lockGeneration(organizationId: string, generationId: string): Promise<RecordedCharge | null> {
    const rows: {
      list_status: HistoryListStatus;
      client_cost: string;
      api_key_id: string | null;
      created_at: Date;
      code: string | null;
    }[] = await this.manager.query(
      `SELECT "list_status", "client_cost", "api_key_id", "created_at", "error"->>'code' AS "code"
         FROM "billing"."generations" WHERE "organization_id" = $1 AND "id" = $2 FOR UPDATE`,
      [organizationId, generationId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      listStatus: row.list_status,
      clientCost: new Decimal(row.client_cost),
      apiKeyId: row.api_key_id,
      createdAt: row.created_at,
      errorCode: row.code,
    };
  }

  async markUndelivered(organizationId: string, generationId: string, error: GenerationError): Promise<void> {
    await this.manager.query(
      `UPDATE "billing"."generations"
          SET "status" = 'failed', "list_status" = 'failed', "client_cost" = 0, "error" = $3::jsonb
        WHERE "organization_id" = $1 AND "id" = $2`,
      [organizationId, generationId, JSON.stringify(error)],
    );
  }
}
