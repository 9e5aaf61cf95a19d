import { type INestMicroservice } from '@nestjs/common';
import { type GetMediaGenerationRequest, MediaContracts, type Principal } from '@gw/contracts';
import { type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  malformedMessages,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from '../src/media.module';
import { DEMO_CATALOGUE } from './media-test-app';

describe('media service over NATS and Postgres', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let service: INestMicroservice;
  let client: RpcClient;
  let closeClient: () => Promise<void>;
  const organizationId = randomUUID();
  const principal: Principal = { kind: 'user', organizationId, userId: randomUUID(), role: 'admin' };

  beforeAll(async () => {
    db = await createTestDatabase('media');
    nats = await startTestNats();
    const env = Object.assign(new MediaEnv(), { DATABASE_URL: db.url, CATALOGUE_FILE: DEMO_CATALOGUE });
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    service = await startService(
      MediaModule.register({ env, transport }),
      transport,
      MEDIA_QUEUE,
      silentLogger,
    );
    const connection = await connectTestTransport(transport);
    client = connection.rpc;
    closeClient = () => connection.close();
  });

  afterAll(async () => {
    await closeClient();
    await service.close();
    await db.drop();
    await nats.stop();
  });

  it('runs its migrations into its own schema', async () => {
    const ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
    const tables = await ds.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'media' ORDER BY 1`,
    );
    await ds.destroy();
    expect(tables.map((t: { table_name: string }) => t.table_name)).toEqual([
      'event_outbox',
      'generations',
      'migrations',
      'request_attempts',
    ]);
  });

  it('answers not_found for an unknown generation', async () => {
    await expect(
      client.request(MediaContracts.getGeneration, { principal, id: 'gen_missing' }),
    ).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it.each(malformedMessages({ principal, id: 'gen_missing' }, 'principal'))(
    'answers a request $label with invalid_request',
    async ({ payload, param }) => {
      await expect(
        client.request(MediaContracts.getGeneration, payload as GetMediaGenerationRequest),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
    },
  );
});
