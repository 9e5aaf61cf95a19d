import { createTestDatabase, type TestDatabase } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { GenerationOutboxRepository } from './generation-outbox.repository';
import { OutboxPruner } from './outbox-pruner.service';
import {
  createPaidGenerationTables,
  dropPaidGenerationTables,
  indexPublishedOutboxEvents,
} from './paid-generation-migration';
import { paidGenerationTables } from './paid-generation-tables';

class CreatePaidGenerationTables1763900000000 implements MigrationInterface {
  name = 'CreatePaidGenerationTables1763900000000';
  up = (q: QueryRunner) => createPaidGenerationTables(q, 'public');
  down = (q: QueryRunner) => dropPaidGenerationTables(q, 'public');
}

const IndexPublishedOutboxEvents1766000000000 = indexPublishedOutboxEvents(
  'public',
  'IndexPublishedOutboxEvents1766000000000',
);

const HOUR = 3_600_000;

describe('OutboxPruner', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let pruner: OutboxPruner;
  const now = new Date();
  const tables = paidGenerationTables('public');

  beforeAll(async () => {
    db = await createTestDatabase('outbox_pruner');
    dataSource = await new DataSource({
      type: 'postgres',
      url: db.url,
      entities: [tables.RequestAttempt, tables.EventOutbox],
      migrations: [CreatePaidGenerationTables1763900000000, IndexPublishedOutboxEvents1766000000000],
      migrationsRun: true,
    }).initialize();
    pruner = new OutboxPruner(new GenerationOutboxRepository(dataSource, tables), 24 * HOUR);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** Stores `count` events created `ageMs` before now, published or not. */
  const store = (count: number, ageMs: number, published: boolean, tag: string) =>
    dataSource.query(
      `INSERT INTO "public"."event_outbox" ("message_id", "organization_id", "subject", "payload", "created_at", "published_at")
       SELECT $1 || '-' || i, $2, 'events.generation.finished', '{"cost":"0.01"}', $3::timestamptz, CASE WHEN $4 THEN $3::timestamptz END
         FROM generate_series(1, $5) AS i`,
      [tag, randomUUID(), new Date(now.getTime() - ageMs), published, count],
    );
  const countOf = async (tag: string) =>
    Number(
      (
        await dataSource.query(
          `SELECT count(*) AS n FROM "public"."event_outbox" WHERE "message_id" LIKE $1`,
          [`${tag}-%`],
        )
      )[0].n,
    );

  it('deletes the events published before the retention, in batches, and keeps the rest', async () => {
    await store(2_500, 48 * HOUR, true, 'old-published');
    await store(3, HOUR, true, 'recent-published');
    await store(4, 72 * HOUR, false, 'old-unpublished');

    await expect(pruner.prune(now)).resolves.toBe(2_500);

    expect(await countOf('old-published')).toBe(0);
    expect(await countOf('recent-published')).toBe(3);
    expect(await countOf('old-unpublished')).toBe(4);
    await expect(pruner.prune(now)).resolves.toBe(0);
  });

  it('finds what it may delete through the index of published events', async () => {
    const plan: Array<{ 'QUERY PLAN': string }> = await dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      return manager.query(
        `EXPLAIN SELECT "message_id" FROM "public"."event_outbox"
          WHERE "published_at" IS NOT NULL AND "created_at" < now() ORDER BY "created_at" LIMIT 1000`,
      );
    });
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('event_outbox_published_idx');
  });
});
