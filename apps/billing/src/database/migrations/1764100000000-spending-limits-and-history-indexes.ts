import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class SpendingLimitsAndHistoryIndexes1764100000000 implements MigrationInterface {
  name = 'SpendingLimitsAndHistoryIndexes1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "billing"."spending_limits" (
      "organization_id" uuid NOT NULL,
      "api_key_id" uuid NOT NULL,
      "period" text NOT NULL CHECK ("period" IN ('day', 'week', 'month', 'total')),
      "amount" numeric(20,8) NOT NULL CHECK ("amount" >= 0),
      "updated_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("organization_id", "api_key_id", "period")
    )`);
    // One row per key, period and calendar window: what running generations hold and what settled
    // ones were charged. Only written under the account's row lock, so replicas never interleave.
    await q.query(`CREATE TABLE "billing"."spending_counters" (
      "organization_id" uuid NOT NULL,
      "api_key_id" uuid NOT NULL,
      "period" text NOT NULL CHECK ("period" IN ('day', 'week', 'month', 'total')),
      "window_start" timestamptz NOT NULL,
      "held" numeric(20,8) NOT NULL DEFAULT 0 CHECK ("held" >= 0),
      "spent" numeric(20,8) NOT NULL DEFAULT 0 CHECK ("spent" >= 0),
      PRIMARY KEY ("organization_id", "api_key_id", "period", "window_start")
    )`);
    await q.query(`ALTER TABLE "billing"."reservations" ADD COLUMN "context" jsonb`);

    // Display names are catalogue data: one row per model instead of a copy in every generation.
    await q.query(`CREATE TABLE "billing"."models" (
      "model" text PRIMARY KEY,
      "display_name" text NOT NULL
    )`);
    await q.query(`INSERT INTO "billing"."models" ("model", "display_name")
      SELECT DISTINCT ON ("model") "model", "model_display_name" FROM "billing"."generations"
       ORDER BY "model", "recorded_at" DESC`);
    await q.query(`ALTER TABLE "billing"."generations" DROP COLUMN "model_display_name"`);

    // Every list query is scoped to one organization (and, for an API key, to that key) and ends its
    // ORDER BY with created_at and id, so each index below serves one filter or sort in both directions.
    await q.query(`DROP INDEX "billing"."generations_org_created_idx"`);
    await q.query(`DROP INDEX "billing"."generations_org_key_created_idx"`);
    const indexes: [string, string][] = [
      ['generations_org_created_idx', '"organization_id", "created_at", "id"'],
      ['generations_org_key_created_idx', '"organization_id", "api_key_id", "created_at", "id"'],
      ['generations_org_cost_idx', '"organization_id", "client_cost", "created_at", "id"'],
      ['generations_org_key_cost_idx', '"organization_id", "api_key_id", "client_cost", "created_at", "id"'],
      ['generations_org_status_created_idx', '"organization_id", "list_status", "created_at", "id"'],
      ['generations_org_type_created_idx', '"organization_id", "request_type", "created_at", "id"'],
      // Without these a cost sort with a rare (or absent) status or type walks the organization's whole cost index.
      [
        'generations_org_status_cost_idx',
        '"organization_id", "list_status", "client_cost", "created_at", "id"',
      ],
      [
        'generations_org_type_cost_idx',
        '"organization_id", "request_type", "client_cost", "created_at", "id"',
      ],
    ];
    for (const [name, columns] of indexes) {
      await q.query(`CREATE INDEX "${name}" ON "billing"."generations" (${columns})`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of [
      'generations_org_created_idx',
      'generations_org_key_created_idx',
      'generations_org_cost_idx',
      'generations_org_key_cost_idx',
      'generations_org_status_created_idx',
      'generations_org_type_created_idx',
      'generations_org_status_cost_idx',
      'generations_org_type_cost_idx',
    ]) {
      await q.query(`DROP INDEX "billing"."${name}"`);
    }
    await q.query(
      `CREATE INDEX "generations_org_created_idx" ON "billing"."generations" ("organization_id", "created_at")`,
    );
    await q.query(
      `CREATE INDEX "generations_org_key_created_idx" ON "billing"."generations" ("organization_id", "api_key_id", "created_at")`,
    );
    await q.query(`ALTER TABLE "billing"."generations" ADD COLUMN "model_display_name" text`);
    await q.query(`UPDATE "billing"."generations" g SET "model_display_name" = COALESCE(m."display_name", g."model")
      FROM "billing"."models" m WHERE m."model" = g."model"`);
    await q.query(
      `UPDATE "billing"."generations" SET "model_display_name" = "model" WHERE "model_display_name" IS NULL`,
    );
    await q.query(`ALTER TABLE "billing"."generations" ALTER COLUMN "model_display_name" SET NOT NULL`);
    await q.query(`DROP TABLE "billing"."models"`);
    await q.query(`ALTER TABLE "billing"."reservations" DROP COLUMN "context"`);
    await q.query(`DROP TABLE "billing"."spending_counters"`);
    await q.query(`DROP TABLE "billing"."spending_limits"`);
  }
}
