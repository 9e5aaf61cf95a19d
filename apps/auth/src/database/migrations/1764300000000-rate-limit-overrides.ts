import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A key and an organization may override the gateway's default rate limits (requests per minute,
 * concurrent requests); NULL keeps the default, 0 lifts the limit.
 */
export class RateLimitOverrides1764300000000 implements MigrationInterface {
  name = 'RateLimitOverrides1764300000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'organizations']) {
      await q.query(`ALTER TABLE "auth"."${table}"
        ADD COLUMN "rate_limit_rpm" integer CHECK ("rate_limit_rpm" >= 0),
        ADD COLUMN "rate_limit_concurrent" integer CHECK ("rate_limit_concurrent" >= 0)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'organizations']) {
      await q.query(
        `ALTER TABLE "auth"."${table}" DROP COLUMN "rate_limit_rpm", DROP COLUMN "rate_limit_concurrent"`,
      );
    }
  }
}
