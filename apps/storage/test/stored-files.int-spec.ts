import { type Principal, StorageContracts, type StoredFile } from '@gw/contracts';
import { type RpcClient, scrapeMetrics } from '@gw/platform';
import { type BlobStore } from '@gw/platform/blobs';
import { expectEventually } from '@gw/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type DataSource } from 'typeorm';
import { StorageTestStand } from './storage-test-stand';

const QUOTA = 1_000;

describe('storage service over NATS, Postgres and S3 (s3rver)', () => {
  let stand: StorageTestStand;
  let client: RpcClient;
  let sql: DataSource;
  let blobs: BlobStore;
  const org = randomUUID();
  const principal: Principal = { kind: 'user', organizationId: org, userId: randomUUID(), role: 'admin' };
  const query = { page: 1, limit: 2, sortBy: 'size' as const, sortOrder: 'asc' as const };

  /** What the gateway does for an upload: slot, object, completion. */
  const upload = async (
    who: Principal,
    size: number,
    fields: Partial<{ fileType: StoredFile['fileType']; storagePolicy: StoredFile['storagePolicy'] }> = {},
  ): Promise<StoredFile> => {
    const slot = await client.request(StorageContracts.beginUpload, { principal: who });
    await blobs.put(slot.objectKey, Readable.from([randomBytes(size)]), 'image/png');
    return client.request(StorageContracts.completeUpload, {
      principal: who,
      fileId: slot.fileId,
      fileType: fields.fileType ?? 'IMAGE',
      mimeType: 'image/png',
      storagePolicy: fields.storagePolicy ?? 'PERMANENT',
      externalUserId: null,
      size,
    });
  };

  const rowCount = async () =>
    Number((await sql.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM storage.files`))[0].n);

  beforeAll(async () => {
    stand = await StorageTestStand.start({
      STORAGE_QUOTA_BYTES: String(QUOTA),
      STORAGE_TEMP_UPLOAD_TTL_MS: '1000',
      STORAGE_SWEEP_INTERVAL_MS: '200',
    });
    ({ rpc: client, sql, blobs } = stand);
  });

  afterAll(() => stand.stop());

  it('stores uploads and lists only the organization files, sorted and paged, with working urls', async () => {
    await upload(principal, 30);
    await upload(principal, 10, { fileType: 'AUDIO' });
    await upload(principal, 20);
    await upload({ ...principal, organizationId: randomUUID() }, 5);
    const page = await client.request(StorageContracts.listFiles, { principal, query });
    expect(page.data.map((f) => f.size)).toEqual([10, 20]);
    expect(page.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page.data[0]).toMatchObject({ fileType: 'AUDIO', storagePolicy: 'PERMANENT', expiresAt: null });
    const served = await fetch(page.data[0].url);
    expect(served.status).toBe(200);
    expect((await served.arrayBuffer()).byteLength).toBe(10);
  });

  it('answers a page and its total from one snapshot while files are being stored', async () => {
    const otherOrg = randomUUID();
    const [template] = (await client.request(StorageContracts.listFiles, { principal, query })).data;
    // Records land one commit at a time, as copies of a stored file moved to another organization.
    let storing = true;
    const store = async () => {
      for (let i = 0; i < 100; i += 1) {
        await sql.query(
          `INSERT INTO storage.files
           SELECT (jsonb_populate_record(NULL::storage.files,
                     to_jsonb(f) || jsonb_build_object('id', $1::text, 'organization_id', $2::text))).*
             FROM storage.files f WHERE f.id = $3`,
          [randomUUID(), otherOrg, template.id],
        );
      }
      storing = false;
    };
    let pages = 0;
    const read = async () => {
      while (storing) {
        const page = await client.request(StorageContracts.listFiles, {
          principal: { ...principal, organizationId: otherOrg },
          query: { ...query, page: 2, limit: 40 },
        });
        expect(page.data).toHaveLength(Math.min(Math.max(page.meta.total - 40, 0), 40));
        pages += 1;
      }
    };
    await Promise.all([store(), read(), read(), read()]);
    expect(pages).toBeGreaterThan(10);
  });

  it('gives an organization admin the statistics, and refuses members and API keys', async () => {
    const stats = await client.request(StorageContracts.stats, { principal });
    expect(stats).toEqual({
      usedBytes: 60,
      totalBytes: QUOTA,
      fileCount: 3,
      filesByType: { IMAGE: 2, VIDEO: 0, AUDIO: 1 },
      filesByPolicy: { TEMP_UPLOAD: 0, TEMP_GENERATION: 0, PERMANENT: 3 },
      usagePercent: 6,
    });
    await expect(
      client.request(StorageContracts.stats, { principal: { ...principal, role: 'member' } }),
    ).rejects.toMatchObject({ code: 'forbidden', status: 403 });
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

  it('refuses an upload beyond the quota with 413 and keeps neither object nor record', async () => {
    const other: Principal = { ...principal, organizationId: randomUUID() };
    await upload(other, 900);
    const before = await rowCount();
    const slot = await client.request(StorageContracts.beginUpload, { principal: other });
    expect(slot.maxBytes).toBe(100);
    await blobs.put(slot.objectKey, Readable.from([randomBytes(200)]), 'image/png');
    await expect(
      client.request(StorageContracts.completeUpload, {
        principal: other,
        fileId: slot.fileId,
        fileType: 'IMAGE',
        mimeType: 'image/png',
        storagePolicy: 'PERMANENT',
        externalUserId: null,
        size: 200,
      }),
    ).rejects.toMatchObject({ code: 'storage_quota_exceeded', status: 413 });
    await expect(blobs.head(slot.objectKey)).resolves.toBeNull();
    expect(await rowCount()).toBe(before);
  });

  it('keeps the quota exact under concurrent uploads', async () => {
    const other: Principal = { ...principal, organizationId: randomUUID() };
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => upload(other, 300)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const stats = await client.request(StorageContracts.stats, { principal: other });
    expect(stats.usedBytes).toBe(900);
  });

  it('deletes a file and its object once, and answers not_found for others', async () => {
    const [first] = (await client.request(StorageContracts.listFiles, { principal, query })).data;
    const stranger: Principal = { ...principal, organizationId: randomUUID() };
    await expect(
      client.request(StorageContracts.deleteFile, { principal: stranger, id: first.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(client.request(StorageContracts.deleteFile, { principal, id: first.id })).resolves.toEqual({
      success: true,
    });
    expect((await fetch(first.url)).status).toBe(404);
    await expect(
      client.request(StorageContracts.deleteFile, { principal, id: first.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.request(StorageContracts.deleteFile, { principal, id: 'not-a-uuid' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('expires a temporary file: the sweeper removes its object and record, and counts it', async () => {
    const swept = async () => {
      const series = 'gw_storage_swept_files_total{reason="expired",service="storage"} ';
      const line = (await scrapeMetrics()).body.split('\n').find((l) => l.startsWith(series));
      return line ? Number(line.slice(series.length)) : 0;
    };
    const sweptBefore = await swept();
    const file = await upload(principal, 7, { storagePolicy: 'TEMP_UPLOAD' });
    expect(new Date(file.expiresAt!).getTime()).toBeGreaterThan(Date.now());
    await expectEventually(
      async () => {
        const rows = await sql.query<unknown[]>(`SELECT 1 FROM storage.files WHERE id = $1`, [file.id]);
        expect(rows).toHaveLength(0);
      },
      { timeoutMs: 10_000 },
    );
    expect((await fetch(file.url)).status).not.toBe(200);
    await expectEventually(async () => expect(await swept()).toBe(sweptBefore + 1));
  });

  it('after a crash between object write and record write, a restart leaves no orphan object and no dangling record', async () => {
    const crashed: Principal = { ...principal, organizationId: randomUUID() };
    const slot = await client.request(StorageContracts.beginUpload, { principal: crashed });
    await blobs.put(slot.objectKey, Readable.from([randomBytes(50)]), 'image/png');
    // The process dies here: the completion never comes.
    await stand.restartService({ STORAGE_PENDING_UPLOAD_TTL_MS: '1000' });
    await expectEventually(
      async () => {
        await expect(blobs.head(slot.objectKey)).resolves.toBeNull();
        const rows = await sql.query<unknown[]>(`SELECT 1 FROM storage.files WHERE id = $1`, [slot.fileId]);
        expect(rows).toHaveLength(0);
      },
      { timeoutMs: 10_000 },
    );
    const listed = await client.request(StorageContracts.listFiles, {
      principal: crashed,
      query: { ...query, limit: 20 },
    });
    expect(listed.meta.total).toBe(0);
  });
});
