import { type INestMicroservice } from '@nestjs/common';
import { type Principal, StorageContracts } from '@gw/contracts';
import { type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { STORAGE_QUEUE, StorageEnv, StorageModule } from '../src/storage.module';

describe('storage service over NATS and Postgres', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let service: INestMicroservice;
  let client: RpcClient;
  let closeClient: () => Promise<void>;
  let sql: DataSource;
  const org = randomUUID();
  const principal: Principal = { kind: 'user', organizationId: org, userId: randomUUID(), role: 'admin' };
  const query = { page: 1, limit: 2, sortBy: 'size' as const, sortOrder: 'asc' as const };

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('storage'), startTestNats()]);
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
    // Upload arrives with the storage issue; until then the records are written directly.
    for (const [owner, size, type] of [
      [org, 30, 'IMAGE'],
      [org, 10, 'AUDIO'],
      [org, 20, 'IMAGE'],
      [randomUUID(), 5, 'IMAGE'],
    ] as const) {
      await sql.query(
        `INSERT INTO storage.files (organization_id, object_key, file_type, mime_type, source, storage_policy, url, size)
         VALUES ($1, $2, $3, 'application/octet-stream', 'USER_UPLOAD', 'PERMANENT', 'http://files/x', $4)`,
        [owner, randomUUID(), type, size],
      );
    }
  });

  afterAll(async () => {
    await sql.destroy();
    await closeClient();
    await service.close();
    await Promise.all([db.drop(), nats.stop()]);
  });

  it('lists only the organization files, sorted and paged, in the {data, meta} form', async () => {
    const page = await client.request(StorageContracts.listFiles, { principal, query });
    expect(page.data.map((f) => f.size)).toEqual([10, 20]);
    expect(page.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page.data[0]).toMatchObject({
      fileType: 'AUDIO',
      storagePolicy: 'PERMANENT',
      expiresAt: null,
      externalUserId: null,
    });
    const images = await client.request(StorageContracts.listFiles, {
      principal,
      query: { ...query, fileType: 'IMAGE', sortOrder: 'desc' },
    });
    expect(images.data.map((f) => f.size)).toEqual([30, 20]);
  });

  it('gives an organization admin the statistics, and refuses members and API keys', async () => {
    const stats = await client.request(StorageContracts.stats, { principal });
    expect(stats).toEqual({
      usedBytes: 60,
      totalBytes: new StorageEnv().STORAGE_QUOTA_BYTES,
      fileCount: 3,
      filesByType: { IMAGE: 2, VIDEO: 0, AUDIO: 1 },
      filesByPolicy: { TEMP_UPLOAD: 0, TEMP_GENERATION: 0, PERMANENT: 3 },
      usagePercent: 0,
    });
    const member: Principal = { ...principal, role: 'member' };
    await expect(client.request(StorageContracts.stats, { principal: member })).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
    });
    const apiKey: Principal = {
      kind: 'api_key',
      organizationId: org,
      apiKeyId: randomUUID(),
      apiKeyName: 'k',
      apiKeyShort: 'abcdef',
      userId: null,
    };
    await expect(client.request(StorageContracts.stats, { principal: apiKey })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('deletes a file of the organization once, and answers not_found for others', async () => {
    const [first] = (await client.request(StorageContracts.listFiles, { principal, query })).data;
    await expect(client.request(StorageContracts.deleteFile, { principal, id: first.id })).resolves.toEqual({
      success: true,
    });
    await expect(
      client.request(StorageContracts.deleteFile, { principal, id: first.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.request(StorageContracts.deleteFile, { principal, id: 'not-a-uuid' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
