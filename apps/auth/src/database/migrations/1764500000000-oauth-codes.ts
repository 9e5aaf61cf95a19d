import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Authorization codes of the OAuth flow, stored as SHA-256 digests (a leaked table cannot be
 * exchanged), and on api_keys the application an OAuth-issued key belongs to, unique per user and
 * organization among active keys, so re-authorizing rotates the key instead of adding one.
 */
export class OAuthCodes1764500000000 implements MigrationInterface {
  name = 'OAuthCodes1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "auth"."oauth_codes" (
      "code_hash" char(64) PRIMARY KEY,
      "user_id" uuid NOT NULL REFERENCES "auth"."users"("id"),
      "organization_id" uuid NOT NULL REFERENCES "auth"."organizations"("id"),
      "callback_url" text NOT NULL,
      "code_challenge" text NOT NULL,
      "app_name" text,
      "scopes" text[] NOT NULL,
      "spending_limits" jsonb NOT NULL DEFAULT '[]',
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "expires_at" timestamptz NOT NULL,
      "used_at" timestamptz
    )`);
    await q.query(`CREATE INDEX "oauth_codes_expires_at" ON "auth"."oauth_codes" ("expires_at")`);
    await q.query(`ALTER TABLE "auth"."api_keys" ADD COLUMN "oauth_client" text`);
    await q.query(`CREATE UNIQUE INDEX "api_keys_active_oauth_client" ON "auth"."api_keys"
      ("organization_id", "user_id", "oauth_client")
      WHERE "revoked_at" IS NULL AND "oauth_client" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "auth"."api_keys_active_oauth_client"`);
    await q.query(`ALTER TABLE "auth"."api_keys" DROP COLUMN "oauth_client"`);
    await q.query(`DROP TABLE "auth"."oauth_codes"`);
  }
}
