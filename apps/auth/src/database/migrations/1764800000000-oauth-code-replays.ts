import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What a replayed authorization code needs (RFC 6749 §4.1.2): the key secret its exchange handed
 * out, to revoke it, and when the code was first used again, so an exchange still issuing its key
 * learns of a replay that came meanwhile.
 */
export class OAuthCodeReplays1764800000000 implements MigrationInterface {
  name = 'OAuthCodeReplays1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."oauth_codes" ADD COLUMN "issued_key_hash" char(64)`);
    await q.query(`ALTER TABLE "auth"."oauth_codes" ADD COLUMN "replayed_at" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth"."oauth_codes" DROP COLUMN "replayed_at"`);
    await q.query(`ALTER TABLE "auth"."oauth_codes" DROP COLUMN "issued_key_hash"`);
  }
}
