import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Cancelled generations were listed completed when charged; they are listed failed now (decision 40). */
export class ListCancelledGenerationsAsFailed1764200000000 implements MigrationInterface {
  name = 'ListCancelledGenerationsAsFailed1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE "billing"."generations" SET "list_status" = 'failed' WHERE "status" = 'cancelled' AND "list_status" <> 'failed'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE "billing"."generations" SET "list_status" = 'completed' WHERE "status" = 'cancelled' AND "client_cost" > 0`,
    );
  }
}
