import { type INestMicroservice } from '@nestjs/common';
import { type DeleteStoredFileRequest, type Principal, StorageContracts } from '@gw/contracts';
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
import { STORAGE_QUEUE, StorageEnv, StorageModule } from '../src/storage.module';

describe('storage refuses malformed NATS messages', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let service: INestMicroservice;
  let client: RpcClient;
  let closeClient: () => Promise<void>;
  let sql: DataSource;
  let fileId: string;
  const org = randomUUID();
  const principal: Principal = { kind: 'user', organizationId: org, userId: randomUUID(), role: 'admin' };

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('storage_malformed'), startTestNats()]);
    const env = Object.assign(new StorageEnv(), { DATABASE_URL: db.url });
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    service = await startService(
      StorageModule.register({ env, transport }),
      transport,
      STORAGE_QUEUE,
      silentLogger,
    );
    const connection = await connectTestTransport(transport);
    client = connection.rpc;
    closeClient = () => connection.close();
    sql = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const rows: { id: string }[] = await sql.query(
      `INSERT INTO storage.files (organization_id, object_key, file_type, mime_type, source, storage_policy, size, status)
       VALUES ($1, $2, 'IMAGE', 'image/png', 'USER_UPLOAD', 'PERMANENT', 10, 'stored') RETURNING id`,
      [org, randomUUID()],
    );
    fileId = rows[0].id;
  });

  afterAll(async () => {
    await sql.destroy();
    await closeClient();
    await service.close();
    await Promise.all([db.drop(), nats.stop()]);
  });

  const fileCount = async () =>
    Number((await sql.query(`SELECT count(*) AS n FROM storage.files`))[0].n as string);

  it.each(malformedMessages({ principal, id: '' }, 'principal'))(
    'answers a delete $label with invalid_request and deletes nothing',
    async ({ payload, param }) => {
      const message = typeof payload === 'object' ? { ...(payload as object), id: fileId } : payload;
      await expect(
        client.request(StorageContracts.deleteFile, message as DeleteStoredFileRequest),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
      expect(await fileCount()).toBe(1);
    },
  );

  it('refuses an API-key principal that lacks its key fields', async () => {
    await expect(
      client.request(StorageContracts.stats, {
        principal: { kind: 'api_key', organizationId: org } as Principal,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: expect.stringMatching(/^principal\./) });
  });
});
