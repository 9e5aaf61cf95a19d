import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { DataSource } from 'typeorm';
import type { SpendingLimitPeriod } from '@gw/contracts';

export interface StoredLimit {
  period: SpendingLimitPeriod;
  amount: Decimal;
}

@Injectable()
export class SpendingLimitRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Replaces the key's limits in one transaction, so a reserve sees either the old set or the new one. */
  async replace(organizationId: string, apiKeyId: string, limits: StoredLimit[]): Promise<StoredLimit[]> {
    return this.dataSource.transaction(async (manager) => {
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
      const rows: { period: SpendingLimitPeriod; amount: string }[] = await manager.query(
        `SELECT "period", "amount" FROM "billing"."spending_limits" WHERE "organization_id" = $1 AND "api_key_id" = $2`,
        [organizationId, apiKeyId],
      );
      return rows.map((row) => ({ period: row.period, amount: new Decimal(row.amount) }));
    });
  }
}
