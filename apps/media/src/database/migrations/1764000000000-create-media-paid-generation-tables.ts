import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The paid-generation pipeline's tables (libs/paid-generation) in media's own schema. */
export class CreateMediaPaidGenerationTables1764000000000 implements MigrationInterface {
  name = 'CreateMediaPaidGenerationTables1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "media"."request_attempts" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "generation_id" text NOT NULL,
      "organization_id" uuid NOT NULL,
      "attempt" integer NOT NULL,
      "provider" text NOT NULL,
      "status" text NOT NULL,
      "error_code" text,
      "error_message" text,
      "http_status" integer,
      "started_at" timestamptz NOT NULL,
      "duration_ms" integer NOT NULL,
      UNIQUE ("generation_id", "attempt")
    )`);
    await q.query(
      `CREATE INDEX "request_attempts_org_started_idx" ON "media"."request_attempts" ("organization_id", "started_at")`,
    );
    await q.query(`CREATE TABLE "media"."event_outbox" (
      "message_id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "subject" text NOT NULL,
      "payload" jsonb NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz,
      "publish_attempts" integer NOT NULL DEFAULT 0
    )`);
    await q.query(
      `CREATE INDEX "event_outbox_unpublished_idx" ON "media"."event_outbox" ("created_at") WHERE "published_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "media"."event_outbox"`);
    await q.query(`DROP TABLE "media"."request_attempts"`);
  }
}
