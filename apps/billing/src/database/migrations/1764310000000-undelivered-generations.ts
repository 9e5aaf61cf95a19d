import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Generations the gateway could not deliver (decision 65): their reports, and a `refund` ledger
 * entry beside the charge of the same generation. A generation keeps at most one entry per kind,
 * so neither a charge nor a refund can be written twice.
 */
export class UndeliveredGenerations1764310000000 implements MigrationInterface {
  name = 'UndeliveredGenerations1764310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "billing"."undelivered_generations" (
      "generation_id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "reason" text NOT NULL,
      "reported_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`ALTER TABLE "billing"."ledger_entries" DROP CONSTRAINT "ledger_entries_kind_check"`);
    await q.query(
      `ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_kind_check" CHECK ("kind" IN ('credit', 'charge', 'refund'))`,
    );
    await q.query(
      `ALTER TABLE "billing"."ledger_entries" DROP CONSTRAINT "ledger_entries_generation_id_key"`,
    );
    await q.query(
      `ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_generation_kind" UNIQUE ("generation_id", "kind")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "billing"."ledger_entries" WHERE "kind" = 'refund'`);
    await q.query(`ALTER TABLE "billing"."ledger_entries" DROP CONSTRAINT "ledger_entries_generation_kind"`);
    await q.query(
      `ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_generation_id_key" UNIQUE ("generation_id")`,
    );
    await q.query(`ALTER TABLE "billing"."ledger_entries" DROP CONSTRAINT "ledger_entries_kind_check"`);
    await q.query(
      `ALTER TABLE "billing"."ledger_entries" ADD CONSTRAINT "ledger_entries_kind_check" CHECK ("kind" IN ('credit', 'charge'))`,
    );
    await q.query(`DROP TABLE "billing"."undelivered_generations"`);
  }
}
