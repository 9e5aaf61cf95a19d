import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A generation becomes its own durable job: who asked (for the hold's history context), what was
 * asked and priced, its result files, its error, the provider's job and the lease and schedule the
 * job runners claim it by. `result` gives way to `files`, the stored results the record answers.
 */
export class MediaGenerationJobs1764100000000 implements MigrationInterface {
  name = 'MediaGenerationJobs1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "media"."generations"
      DROP COLUMN "result",
      ADD COLUMN "principal" jsonb NOT NULL DEFAULT '{}',
      ADD COLUMN "model_display_name" text NOT NULL DEFAULT '',
      ADD COLUMN "request_type" text NOT NULL DEFAULT 'image',
      ADD COLUMN "surface" text NOT NULL DEFAULT 'media',
      ADD COLUMN "response_mode" text NOT NULL DEFAULT 'async',
      ADD COLUMN "parent_id" text,
      ADD COLUMN "operation" text,
      ADD COLUMN "external_user_id" text,
      ADD COLUMN "warnings" jsonb NOT NULL DEFAULT '[]',
      ADD COLUMN "price" numeric(20,8) NOT NULL DEFAULT 0,
      ADD COLUMN "reserved" numeric(20,8) NOT NULL DEFAULT 0,
      ADD COLUMN "cost" numeric(20,8),
      ADD COLUMN "usage" jsonb,
      ADD COLUMN "files" jsonb NOT NULL DEFAULT '[]',
      ADD COLUMN "error" jsonb,
      ADD COLUMN "provider" text,
      ADD COLUMN "provider_job_id" text,
      ADD COLUMN "submitted_at" timestamptz,
      ADD COLUMN "started_at" timestamptz,
      ADD COLUMN "polls" integer NOT NULL DEFAULT 0,
      ADD COLUMN "retries" integer NOT NULL DEFAULT 0,
      ADD COLUMN "lease_owner" text,
      ADD COLUMN "lease_until" timestamptz,
      ADD COLUMN "next_run_at" timestamptz,
      ADD COLUMN "deadline_at" timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN "settled_at" timestamptz`);
    // The runners' claim reads only unfinished jobs by when they are due.
    await q.query(
      `CREATE INDEX "generations_due_idx" ON "media"."generations" ("next_run_at") WHERE "next_run_at" IS NOT NULL`,
    );
    // The hold keeper reads the generations whose outcome billing has not been told yet.
    await q.query(
      `CREATE INDEX "generations_unsettled_idx" ON "media"."generations" ("created_at") WHERE "settled_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "media"."generations_unsettled_idx"`);
    await q.query(`DROP INDEX "media"."generations_due_idx"`);
    await q.query(`ALTER TABLE "media"."generations"
      ADD COLUMN "result" jsonb,
      DROP COLUMN "principal", DROP COLUMN "model_display_name", DROP COLUMN "request_type",
      DROP COLUMN "surface", DROP COLUMN "response_mode", DROP COLUMN "parent_id", DROP COLUMN "operation",
      DROP COLUMN "external_user_id", DROP COLUMN "warnings", DROP COLUMN "price", DROP COLUMN "reserved",
      DROP COLUMN "cost", DROP COLUMN "usage", DROP COLUMN "files", DROP COLUMN "error", DROP COLUMN "provider",
      DROP COLUMN "provider_job_id", DROP COLUMN "submitted_at", DROP COLUMN "started_at", DROP COLUMN "polls",
      DROP COLUMN "retries", DROP COLUMN "lease_owner", DROP COLUMN "lease_until", DROP COLUMN "next_run_at",
      DROP COLUMN "deadline_at", DROP COLUMN "settled_at"`);
  }
}
