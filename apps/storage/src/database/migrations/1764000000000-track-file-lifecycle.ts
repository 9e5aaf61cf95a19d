import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A record now exists before its object (an upload intent, `pending`) and outlives it while it is
 * removed (`deleting`), so a crash at any step leaves something the sweeper completes. The url is
 * signed on every read, so it is no longer stored.
 */
export class TrackFileLifecycle1764000000000 implements MigrationInterface {
  name = 'TrackFileLifecycle1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "storage"."files"
      DROP COLUMN "url",
      ADD COLUMN "status" text NOT NULL DEFAULT 'stored' CHECK ("status" IN ('pending', 'stored', 'deleting')),
      ADD COLUMN "claimed_until" timestamptz,
      ALTER COLUMN "file_type" DROP NOT NULL,
      ALTER COLUMN "mime_type" DROP NOT NULL,
      ALTER COLUMN "storage_policy" DROP NOT NULL,
      ALTER COLUMN "size" SET DEFAULT 0,
      ADD CONSTRAINT "files_stored_complete" CHECK (
        "status" <> 'stored' OR ("file_type" IS NOT NULL AND "mime_type" IS NOT NULL AND "storage_policy" IS NOT NULL)
      )`);
    await q.query(`ALTER TABLE "storage"."files" ALTER COLUMN "status" SET DEFAULT 'pending'`);
    await q.query(
      `CREATE INDEX "files_expiry_idx" ON "storage"."files" ("expires_at") WHERE "status" = 'stored' AND "expires_at" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "files_unfinished_idx" ON "storage"."files" ("created_at") WHERE "status" <> 'stored'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "storage"."files_unfinished_idx"`);
    await q.query(`DROP INDEX "storage"."files_expiry_idx"`);
    await q.query(`DELETE FROM "storage"."files" WHERE "status" <> 'stored'`);
    await q.query(`ALTER TABLE "storage"."files"
      DROP CONSTRAINT "files_stored_complete",
      DROP COLUMN "claimed_until",
      DROP COLUMN "status",
      ALTER COLUMN "file_type" SET NOT NULL,
      ALTER COLUMN "mime_type" SET NOT NULL,
      ALTER COLUMN "storage_policy" SET NOT NULL,
      ALTER COLUMN "size" DROP DEFAULT,
      ADD COLUMN "url" text NOT NULL DEFAULT ''`);
  }
}
