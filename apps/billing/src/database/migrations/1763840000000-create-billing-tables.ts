import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateBillingTables1763840000000 implements MigrationInterface {
  name = 'CreateBillingTables1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "billing"."accounts" (
      "organization_id" uuid PRIMARY KEY,
      "balance" numeric(20,8) NOT NULL DEFAULT 0,
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    // Append-only: a charge is unique per generation and a credit per idempotency key, so a
    // redelivered event or a retried request can never write a second entry.
    await q.query(`CREATE TABLE "billing"."ledger_entries" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "organization_id" uuid NOT NULL,
      "kind" text NOT NULL CHECK ("kind" IN ('credit', 'charge')),
      "amount" numeric(20,8) NOT NULL CHECK ("amount" > 0),
      "balance_after" numeric(20,8) NOT NULL,
      "generation_id" text UNIQUE,
      "idempotency_key" text,
      "reason" text,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT "ledger_entries_org_idempotency_key" UNIQUE ("organization_id", "idempotency_key")
    )`);
    await q.query(
      `CREATE INDEX "ledger_entries_org_created_idx" ON "billing"."ledger_entries" ("organization_id", "created_at")`,
    );
    await q.query(`CREATE TABLE "billing"."reservations" (
      "generation_id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "api_key_id" uuid,
      "amount" numeric(20,8) NOT NULL CHECK ("amount" >= 0),
      "status" text NOT NULL CHECK ("status" IN ('held', 'settled', 'released')),
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "expires_at" timestamptz NOT NULL
    )`);
    await q.query(
      `CREATE INDEX "reservations_org_held_idx" ON "billing"."reservations" ("organization_id") WHERE "status" = 'held'`,
    );
    await q.query(
      `CREATE INDEX "reservations_held_expiry_idx" ON "billing"."reservations" ("expires_at") WHERE "status" = 'held'`,
    );
    await q.query(`CREATE TABLE "billing"."generations" (
      "id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "api_key_id" uuid,
      "api_key_name" text,
      "api_key_short" text,
      "user_id" uuid,
      "model" text NOT NULL,
      "model_display_name" text NOT NULL,
      "request_type" text NOT NULL,
      "api_type" text NOT NULL,
      "response_mode" text NOT NULL,
      "status" text NOT NULL,
      "list_status" text NOT NULL CHECK ("list_status" IN ('completed', 'failed', 'pending')),
      "finish_reason" text,
      "provider" text,
      "usage" jsonb,
      "cost" numeric(20,8) NOT NULL,
      "client_cost" numeric(20,8) NOT NULL,
      "generation_time_ms" integer,
      "latency_ms" integer,
      "queue_time_ms" integer,
      "attempts_count" integer NOT NULL,
      "is_cancelled" boolean NOT NULL,
      "error" jsonb,
      "created_at" timestamptz NOT NULL,
      "completed_at" timestamptz,
      "recorded_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(
      `CREATE INDEX "generations_org_created_idx" ON "billing"."generations" ("organization_id", "created_at")`,
    );
    await q.query(
      `CREATE INDEX "generations_org_key_created_idx" ON "billing"."generations" ("organization_id", "api_key_id", "created_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billing"."generations"`);
    await q.query(`DROP TABLE "billing"."reservations"`);
    await q.query(`DROP TABLE "billing"."ledger_entries"`);
    await q.query(`DROP TABLE "billing"."accounts"`);
  }
}
