import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** A key may carry several spending limits (one per period); billing enforces them, auth shows them. */
export class ApiKeySpendingLimits1764100000000 implements MigrationInterface {
  name = 'ApiKeySpendingLimits1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."api_keys" ADD COLUMN "spending_limits" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`UPDATE "auth"."api_keys"
        SET "spending_limits" = jsonb_build_array(jsonb_build_object('period', "limit_period", 'amount', "limit_amount"::text))
      WHERE "limit_period" IS NOT NULL`);
    await q.query(`ALTER TABLE "auth"."api_keys" DROP CONSTRAINT "api_keys_limit_complete"`);
    await q.query(`ALTER TABLE "auth"."api_keys" DROP COLUMN "limit_period", DROP COLUMN "limit_amount"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."api_keys"
      ADD COLUMN "limit_period" text CHECK ("limit_period" IN ('day', 'week', 'month', 'total')),
      ADD COLUMN "limit_amount" numeric(20, 8)`);
    await q.query(`UPDATE "auth"."api_keys"
        SET "limit_period" = "spending_limits"->0->>'period', "limit_amount" = ("spending_limits"->0->>'amount')::numeric
      WHERE jsonb_array_length("spending_limits") > 0`);
    await q.query(`ALTER TABLE "auth"."api_keys" ADD CONSTRAINT "api_keys_limit_complete"
      CHECK (("limit_period" IS NULL) = ("limit_amount" IS NULL))`);
    await q.query(`ALTER TABLE "auth"."api_keys" DROP COLUMN "spending_limits"`);
  }
}
