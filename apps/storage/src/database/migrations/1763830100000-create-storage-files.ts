import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateStorageFiles1763830100000 implements MigrationInterface {
  name = 'CreateStorageFiles1763830100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "storage"."files" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "organization_id" uuid NOT NULL,
      "object_key" text NOT NULL,
      "file_type" text NOT NULL CHECK ("file_type" IN ('IMAGE', 'VIDEO', 'AUDIO')),
      "mime_type" text NOT NULL,
      "source" text NOT NULL CHECK ("source" IN ('USER_UPLOAD', 'AI_GENERATION')),
      "storage_policy" text NOT NULL CHECK ("storage_policy" IN ('TEMP_UPLOAD', 'TEMP_GENERATION', 'PERMANENT')),
      "url" text NOT NULL,
      "size" bigint NOT NULL,
      "external_user_id" varchar(128),
      "expires_at" timestamptz,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(
      `CREATE INDEX "files_org_created_idx" ON "storage"."files" ("organization_id", "created_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "storage"."files"`);
  }
}
