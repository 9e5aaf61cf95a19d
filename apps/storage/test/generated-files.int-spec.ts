import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GeneratedFileContracts, type Principal, StorageContracts } from '@gw/contracts';
import { type RpcClient } from '@gw/platform';
import { type BlobStore, GeneratedFileWriter } from '@gw/platform/blobs';
import { expectEventually } from '@gw/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { type DataSource } from 'typeorm';
import { StorageTestStand } from './storage-test-stand';

const QUOTA = 1_000;
const TEMP_GENERATION_TTL_MS = 3_600_000;

/**
 * What the media service will do with what it generates: GeneratedFileWriter against the storage
 * service over NATS, Postgres and S3 (s3rver).
 */
describe('generated files stored through the storage contract', () => {
  let stand: StorageTestStand;
  let client: RpcClient;
  let sql: DataSource;
  let blobs: BlobStore;
  let writer: GeneratedFileWriter;
  let bucket: S3Client;

  const admin = (organizationId: string): Principal => ({
    kind: 'user',
    organizationId,
    userId: randomUUID(),
    role: 'admin',
  });
  const listAll = (organizationId: string) =>
    client.request(StorageContracts.listFiles, {
      principal: admin(organizationId),
      query: { page: 1, limit: 100, sortBy: 'createdAt', sortOrder: 'asc' },
    });
  const objectsOf = async (organizationId: string) =>
    (await bucket.send(new ListObjectsV2Command({ Bucket: stand.s3.bucket, Prefix: `${organizationId}/` })))
      .KeyCount ?? 0;
  const rowsOf = async (organizationId: string) =>
    Number(
      (
        await sql.query<Array<{ n: string }>>(
          `SELECT count(*) AS n FROM storage.files WHERE organization_id = $1`,
          [organizationId],
        )
      )[0].n,
    );
  const generated = (organizationId: string, bytes: Buffer, contentType = 'image/png') =>
    writer.store({
      organizationId,
      body: Readable.from([bytes]),
      contentType,
      storagePolicy: 'TEMP_GENERATION',
    });

  beforeAll(async () => {
    stand = await StorageTestStand.start({
      STORAGE_QUOTA_BYTES: String(QUOTA),
      STORAGE_TEMP_GENERATION_TTL_MS: String(TEMP_GENERATION_TTL_MS),
      STORAGE_PENDING_UPLOAD_TTL_MS: '5000',
      STORAGE_SWEEP_INTERVAL_MS: '200',
    });
    ({ rpc: client, sql, blobs } = stand);
    writer = new GeneratedFileWriter(client, blobs);
    bucket = new S3Client({
      endpoint: stand.s3.endpoint,
      region: stand.env.S3_REGION,
      forcePathStyle: true,
      credentials: {
        accessKeyId: stand.env.S3_ACCESS_KEY_ID,
        secretAccessKey: stand.env.S3_SECRET_ACCESS_KEY,
      },
    });
  });

  afterAll(async () => {
    bucket.destroy();
    await stand.stop();
  });

  it('stores a generated image and a sound: listed as AI_GENERATION with their policy, type, expiry and a working url', async () => {
    const org = randomUUID();
    const image = randomBytes(40);
    const before = Date.now();
    const stored = await generated(org, image);
    const sound = await writer.store({
      organizationId: org,
      body: Readable.from([randomBytes(25)]),
      contentType: 'audio/mpeg',
      storagePolicy: 'PERMANENT',
      externalUserId: 'user-7',
    });

    const listed = await listAll(org);
    expect(listed.data).toEqual([stored, sound].map((file) => ({ ...file, url: expect.any(String) })));
    expect(stored).toMatchObject({
      fileType: 'IMAGE',
      mimeType: 'image/png',
      source: 'AI_GENERATION',
      storagePolicy: 'TEMP_GENERATION',
      size: 40,
      externalUserId: null,
    });
    const expiresAt = new Date(stored.expiresAt!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + TEMP_GENERATION_TTL_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + TEMP_GENERATION_TTL_MS);
    expect(sound).toMatchObject({
      fileType: 'AUDIO',
      source: 'AI_GENERATION',
      storagePolicy: 'PERMANENT',
      externalUserId: 'user-7',
      expiresAt: null,
    });

    const served = await fetch(listed.data[0].url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(image);
    const bySource = await client.request(StorageContracts.listFiles, {
      principal: admin(org),
      query: { page: 1, limit: 10, sortBy: 'createdAt', sortOrder: 'asc', storagePolicy: 'TEMP_GENERATION' },
    });
    expect(bySource.data.map((file) => file.id)).toEqual([stored.id]);
  });

  it('counts generated files in the statistics under their policy', async () => {
    const org = randomUUID();
    await generated(org, randomBytes(10));
    await generated(org, randomBytes(20), 'video/mp4');
    const stats = await client.request(StorageContracts.stats, { principal: admin(org) });
    expect(stats).toEqual({
      usedBytes: 30,
      totalBytes: QUOTA,
      fileCount: 2,
      filesByType: { IMAGE: 1, VIDEO: 1, AUDIO: 0 },
      filesByPolicy: { TEMP_UPLOAD: 0, TEMP_GENERATION: 2, PERMANENT: 0 },
      usagePercent: 3,
    });
  });

  it('refuses a file beyond the quota with the upload’s 413 and leaves neither object nor record', async () => {
    const org = randomUUID();
    await generated(org, randomBytes(900));
    await expect(generated(org, randomBytes(200))).rejects.toMatchObject({
      code: 'storage_quota_exceeded',
      status: 413,
    });
    await generated(org, randomBytes(100));
    await expect(generated(org, randomBytes(1))).rejects.toMatchObject({ code: 'storage_quota_exceeded' });
    expect(await rowsOf(org)).toBe(2);
    expect(await objectsOf(org)).toBe(2);
    expect((await listAll(org)).meta.total).toBe(2);
  });

  it('keeps the quota exact when concurrent generations each fit their slot: the refused leave nothing', async () => {
    const org = randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => generated(org, randomBytes(300))),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    for (const result of results)
      if (result.status === 'rejected')
        expect(result.reason).toMatchObject({ code: 'storage_quota_exceeded' });
    expect(await rowsOf(org)).toBe(3);
    expect(await objectsOf(org)).toBe(3);
  });

  it('leaves nothing when the producer’s stream fails half-way', async () => {
    const org = randomUUID();
    const failing = new PassThrough();
    failing.write(randomBytes(50));
    setTimeout(() => failing.destroy(new Error('the upstream provider hung up')), 50);
    await expect(
      writer.store({
        organizationId: org,
        body: failing,
        contentType: 'image/png',
        storagePolicy: 'TEMP_GENERATION',
      }),
    ).rejects.toThrow();
    expect(await rowsOf(org)).toBe(0);
    expect(await objectsOf(org)).toBe(0);
  });

  it('registers only a generation slot of the same organization, and only a generation policy', async () => {
    const org = randomUUID();
    const upload = await client.request(StorageContracts.beginUpload, { principal: admin(org) });
    await blobs.put(upload.objectKey, Readable.from([randomBytes(5)]), 'image/png');
    const register = {
      size: 5,
      contentType: 'image/png',
      storagePolicy: 'TEMP_GENERATION' as const,
      externalUserId: null,
    };
    await expect(
      client.request(GeneratedFileContracts.register, {
        organizationId: org,
        objectKey: upload.objectKey,
        ...register,
      }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });

    const slot = await client.request(GeneratedFileContracts.begin, { organizationId: org });
    await blobs.put(slot.objectKey, Readable.from([randomBytes(5)]), 'image/png');
    await expect(
      client.request(GeneratedFileContracts.register, {
        organizationId: randomUUID(),
        objectKey: slot.objectKey,
        ...register,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.request(GeneratedFileContracts.register, {
        organizationId: org,
        objectKey: slot.objectKey,
        ...register,
        storagePolicy: 'TEMP_UPLOAD' as never,
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.request(GeneratedFileContracts.register, {
        organizationId: org,
        objectKey: slot.objectKey,
        ...register,
        contentType: 'application/pdf',
      }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.request(GeneratedFileContracts.register, {
        organizationId: org,
        objectKey: slot.objectKey,
        ...register,
      }),
    ).resolves.toMatchObject({ source: 'AI_GENERATION', size: 5 });
  });

  it('after a producer dies between writing the bytes and registering them, the sweeper removes object and record', async () => {
    const org = randomUUID();
    const slot = await client.request(GeneratedFileContracts.begin, { organizationId: org });
    await blobs.put(slot.objectKey, Readable.from([randomBytes(50)]), 'image/png');
    // The producer dies here: the registration never comes.
    expect(await objectsOf(org)).toBe(1);
    await expectEventually(
      async () => {
        expect(await objectsOf(org)).toBe(0);
        expect(await rowsOf(org)).toBe(0);
      },
      { timeoutMs: 20_000 },
    );
    expect((await listAll(org)).meta.total).toBe(0);
  });
});
