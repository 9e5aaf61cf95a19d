import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateMediaGenerations1763830000000 implements MigrationInterface {
  name = 'CreateMediaGenerations1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "media"."generations" (
      "id" text PRIMARY KEY,
      "organization_id" uuid NOT NULL,
      "api_key_id" uuid,
      "model" text NOT NULL,
      "status" text NOT NULL,
      "params" jsonb NOT NULL DEFAULT '{}',
      "result" jsonb,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "completed_at" timestamptz
    )`);
    await q.query(
      `CREATE INDEX "generations_org_created_idx" ON "media"."generations" ("organization_id", "created_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "media"."generations"`);
  }
}
