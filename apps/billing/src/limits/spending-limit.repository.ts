import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { DataSource, type EntityManager } from 'typeorm';
import type { SpendingLimitPeriod } from '@gw/contracts';
import { type SpendingWindow } from './spending-windows';

export interface StoredLimit {
  period: SpendingLimitPeriod;
  amount: Decimal;
}

@Injectable()
export class SpendingLimitRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Replaces the key's limits in one transaction, so a reserve sees either the old set or the new one.
   * Only keys with limits keep spending counters (a reserve or settlement of any other key writes
   * none), so the counters of the current `windows` are rebuilt here from the key's holds and
   * charges, under the account lock that every reserve, settlement and expiry takes first: the
   * limits then count what their windows already spent, as if the counters had been kept all along.
   */
  async replace(
    organizationId: string,
    apiKeyId: string,
    limits: StoredLimit[],
    windows: SpendingWindow[],
  ): Promise<StoredLimit[]> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO "billing"."accounts" ("organization_id") VALUES ($1) ON CONFLICT ("organization_id") DO NOTHING`,
        [organizationId],
      );
      await manager.query(`SELECT 1 FROM "billing"."accounts" WHERE "organization_id" = $1 FOR UPDATE`, [
        organizationId,
      ]);
      await manager.query(
        `DELETE FROM "billing"."spending_limits" WHERE "organization_id" = $1 AND "api_key_id" = $2`,
        [organizationId, apiKeyId],
      );
      if (limits.length > 0) {
        await manager.query(
          `INSERT INTO "billing"."spending_limits" ("organization_id", "api_key_id", "period", "amount")
           SELECT $1, $2, l."period", l."amount" FROM unnest($3::text[], $4::numeric[]) AS l("period", "amount")`,
          [organizationId, apiKeyId, limits.map((l) => l.period), limits.map((l) => l.amount.toFixed())],
        );
      }
      if (limits.length > 0) await rebuildCounters(manager, organizationId, apiKeyId, windows);
      const rows: { period: SpendingLimitPeriod; amount: string }[] = await manager.query(
        `SELECT "period", "amount" FROM "billing"."spending_limits" WHERE "organization_id" = $1 AND "api_key_id" = $2`,
        [organizationId, apiKeyId],
      );
      return rows.map((row) => ({ period: row.period, amount: new Decimal(row.amount) }));
    });
  }
}

/**
 * What the counters would hold had they been kept: held = the key's holds still held that were made
 * in the window; spent = the charges of generations whose hold (or, without one, whose event) was
 * made in the window, counted for the key the hold named (its event names the same key). A counter that would be zero is only
 * written when it exists, so a key that never spent gains no rows.
 */
async function rebuildCounters(
  manager: EntityManager,
  organizationId: string,
  apiKeyId: string,
  windows: SpendingWindow[],
): Promise<void> {
  const computed = `
    SELECT w."period", w."window_start",
      (SELECT COALESCE(SUM(r."amount"), 0) FROM "billing"."reservations" r
        WHERE r."organization_id" = $1 AND r."api_key_id" = $2 AND r."status" = 'held'
          AND r."created_at" >= w."window_start") AS "held",
      (SELECT COALESCE(SUM(g."client_cost"), 0) FROM "billing"."generations" g
         LEFT JOIN "billing"."reservations" r ON r."generation_id" = g."id"
        WHERE g."organization_id" = $1 AND g."api_key_id" = $2
          AND (r."generation_id" IS NULL OR r."api_key_id" = $2)
          AND COALESCE(r."created_at", g."created_at") >= w."window_start") AS "spent"
      FROM unnest($3::text[], $4::timestamptz[]) AS w("period", "window_start")`;
  const params = [organizationId, apiKeyId, windows.map((w) => w.period), windows.map((w) => w.start)];
  await manager.query(
    `UPDATE "billing"."spending_counters" c SET "held" = n."held", "spent" = n."spent"
       FROM (${computed}) n
      WHERE c."organization_id" = $1 AND c."api_key_id" = $2
        AND c."period" = n."period" AND c."window_start" = n."window_start"`,
    params,
  );
  await manager.query(
    `INSERT INTO "billing"."spending_counters" ("organization_id", "api_key_id", "period", "window_start", "held", "spent")
     SELECT $1, $2, n."period", n."window_start", n."held", n."spent" FROM (${computed}) n
      WHERE n."held" <> 0 OR n."spent" <> 0
     ON CONFLICT ("organization_id", "api_key_id", "period", "window_start") DO NOTHING`,
    params,
  );
}
