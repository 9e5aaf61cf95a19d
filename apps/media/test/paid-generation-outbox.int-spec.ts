import { type INestMicroservice } from '@nestjs/common';
import { BillingEvents } from '@gw/contracts';
import { scrapeMetrics, startService, type TransportOptions } from '@gw/platform';
import {
  createTestDatabase,
  expectEventually,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from '../src/media.module';
import { DEMO_CATALOGUE } from './media-test-app';

/** The shared paid-generation pipeline runs inside media, on media's own tables. */
describe('media paid-generation outbox', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let service: INestMicroservice;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('media_outbox');
    nats = await startTestNats();
    const env = Object.assign(new MediaEnv(), {
      DATABASE_URL: db.url,
      CATALOGUE_FILE: DEMO_CATALOGUE,
      OUTBOX_RELAY_INTERVAL_MS: 200,
    });
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    service = await startService(
      MediaModule.register({ env, transport }),
      transport,
      MEDIA_QUEUE,
      silentLogger,
    );
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
  });

  afterAll(async () => {
    await ds.destroy();
    await service.close();
    await db.drop();
    await nats.stop();
  });

  it('relays an event left unpublished in media.event_outbox to JetStream', async () => {
    const messageId = `gen-${randomUUID()}`;
    await ds.query(
      `INSERT INTO media.event_outbox (message_id, organization_id, subject, payload, created_at)
       VALUES ($1, $2, $3, $4::jsonb, now() - interval '1 minute')`,
      [
        messageId,
        randomUUID(),
        BillingEvents.generationFinished.subject,
        JSON.stringify({ generationId: messageId }),
      ],
    );
    await expectEventually(
      async () => {
        const rows = await ds.query(`SELECT published_at FROM media.event_outbox WHERE message_id = $1`, [
          messageId,
        ]);
        expect(rows[0].published_at).not.toBeNull();
      },
      { timeoutMs: 10_000 },
    );
  });

  it('shows the events waiting in the outbox at /metrics', async () => {
    const depth = async () => {
      const series = 'gw_outbox_unpublished_events{service="media"} ';
      const line = (await scrapeMetrics()).body.split('\n').find((l) => l.startsWith(series));
      return Number(line?.slice(series.length));
    };
    const messageId = `gen-${randomUUID()}`;
    // Dated ahead, so the relay leaves it for the scrape to see.
    await ds.query(
      `INSERT INTO media.event_outbox (message_id, organization_id, subject, payload, created_at)
       VALUES ($1, $2, $3, $4::jsonb, now() + interval '1 hour')`,
      [
        messageId,
        randomUUID(),
        BillingEvents.generationFinished.subject,
        JSON.stringify({ generationId: messageId }),
      ],
    );
    await expectEventually(async () => expect(await depth()).toBe(1));
    await ds.query(`UPDATE media.event_outbox SET published_at = now() WHERE message_id = $1`, [messageId]);
    expect(await depth()).toBe(0);
  });
});
