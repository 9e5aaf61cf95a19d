import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateAuthTables1763900000000 implements MigrationInterface {
  name = 'CreateAuthTables1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "auth"."users" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "email" text NOT NULL,
      "name" text NOT NULL,
      "password_hash" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE UNIQUE INDEX "users_email_lower_key" ON "auth"."users" (lower("email"))`);

    await q.query(`CREATE TABLE "auth"."organizations" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "name" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now()
    )`);

    await q.query(`CREATE TABLE "auth"."memberships" (
      "organization_id" uuid NOT NULL REFERENCES "auth"."organizations" ("id") ON DELETE CASCADE,
      "user_id" uuid NOT NULL REFERENCES "auth"."users" ("id") ON DELETE CASCADE,
      "role" text NOT NULL CHECK ("role" IN ('admin', 'member')),
      "created_at" timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY ("organization_id", "user_id")
    )`);
    await q.query(`CREATE INDEX "memberships_user_idx" ON "auth"."memberships" ("user_id", "created_at")`);

    await q.query(`CREATE TABLE "auth"."api_keys" (
      "id" uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      "organization_id" uuid NOT NULL REFERENCES "auth"."organizations" ("id") ON DELETE CASCADE,
      "user_id" uuid REFERENCES "auth"."users" ("id") ON DELETE SET NULL,
      "name" text NOT NULL,
      "key_hash" char(64) NOT NULL,
      "short" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "last_used_at" timestamptz,
      "revoked_at" timestamptz,
      "app" text,
      "scopes" text[],
      "limit_period" text CHECK ("limit_period" IN ('day', 'week', 'month', 'total')),
      "limit_amount" numeric(20, 8),
      CONSTRAINT "api_keys_limit_complete" CHECK (("limit_period" IS NULL) = ("limit_amount" IS NULL))
    )`);
    await q.query(`CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "auth"."api_keys" ("key_hash")`);
    await q.query(
      `CREATE INDEX "api_keys_org_created_idx" ON "auth"."api_keys" ("organization_id", "created_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."api_keys"`);
    await q.query(`DROP TABLE "auth"."memberships"`);
    await q.query(`DROP TABLE "auth"."organizations"`);
    await q.query(`DROP TABLE "auth"."users"`);
  }
}
