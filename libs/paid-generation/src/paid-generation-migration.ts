import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The paid-generation pipeline's tables (request attempts, event outbox) in `schema`: the one
 * definition every service's migration that hosts the pipeline runs, so that the entities of
 * `paidGenerationTables(schema)` always find the same columns.
 */
export async function createPaidGenerationTables(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`CREATE TABLE "${schema}"."request_attempts" (
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
    `CREATE INDEX "request_attempts_org_started_idx" ON "${schema}"."request_attempts" ("organization_id", "started_at")`,
  );
  await q.query(`CREATE TABLE "${schema}"."event_outbox" (
      "message_id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "subject" text NOT NULL,
      "payload" jsonb NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "published_at" timestamptz,
      "publish_attempts" integer NOT NULL DEFAULT 0
    )`);
  await q.query(
    `CREATE INDEX "event_outbox_unpublished_idx" ON "${schema}"."event_outbox" ("created_at") WHERE "published_at" IS NULL`,
  );
}

/**
 * The migration that indexes the published events of `schema`'s outbox by age, for the outbox's
 * retention (OutboxPruner, decision 196): without it each pass would scan the whole table for the
 * rows it may delete. Each service lists it under its own `name`.
 */
export function indexPublishedOutboxEvents(schema: string, name: string): new () => MigrationInterface {
  return class IndexPublishedOutboxEvents implements MigrationInterface {
    name = name;

    async up(q: QueryRunner): Promise<void> {
      await q.query(
        `CREATE INDEX "event_outbox_published_idx" ON "${schema}"."event_outbox" ("created_at") WHERE "published_at" IS NOT NULL`,
      );
    }

    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP INDEX "${schema}"."event_outbox_published_idx"`);
    }
  };
}

export async function dropPaidGenerationTables(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`DROP TABLE "${schema}"."event_outbox"`);
  await q.query(`DROP TABLE "${schema}"."request_attempts"`);
}
