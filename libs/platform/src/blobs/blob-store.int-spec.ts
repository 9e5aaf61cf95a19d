import { startTestS3, type TestS3 } from '@gw/testing';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type BlobStore, blobKey, transientBlobKey } from './blob-store';
import { verifyBlobQuery } from './blob-url-signature';
import { LocalDiskBlobStore } from './local-disk-blob-store';
import { S3BlobStore } from './s3-blob-store';
import { TransientBlobSweeper } from './transient-blob-sweeper';
import { AppMetrics } from '../observability/app-metrics';

const URL_SECRET = 'contract-test-url-secret';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A stream of `bytes` in uneven chunks, as a network delivers them. */
function chunked(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0, step = 1; offset < bytes.length; offset += step, step = (step * 7 + 13) % 70_000)
    chunks.push(bytes.subarray(offset, offset + step));
  return Readable.from(chunks);
}

/** The same contract for every implementation of the port. */
function blobStoreContract(
  name: string,
  open: () => Promise<{ store: BlobStore; close: () => Promise<void> }>,
) {
  describe(`${name} blob store`, () => {
    let store: BlobStore;
    let close: () => Promise<void>;
    const key = () => blobKey(randomUUID(), randomUUID());

    beforeAll(async () => ({ store, close } = await open()));
    afterAll(() => close());

    it.each([
      ['empty', 0],
      ['small', 1_000],
      ['exactly one 8 MB part', 8 * 1024 * 1024],
      ['several parts', 17 * 1024 * 1024 + 5],
    ])('stores a streamed %s object byte for byte and reads it back', async (_label, size) => {
      const bytes = randomBytes(size);
      const k = key();
      await expect(store.put(k, chunked(bytes), 'audio/wav')).resolves.toEqual({
        size,
        contentType: 'audio/wav',
      });
      await expect(store.head(k)).resolves.toEqual({ size, contentType: 'audio/wav' });
      const object = await store.get(k);
      expect(object).toMatchObject({ size, contentType: 'audio/wav' });
      expect(sha256(await readAll(object!.body))).toBe(sha256(bytes));
    });

    it('answers null for a missing object and deletes idempotently', async () => {
      const k = key();
      await expect(store.head(k)).resolves.toBeNull();
      await expect(store.get(k)).resolves.toBeNull();
      await store.put(k, Readable.from([Buffer.from('x')]), 'image/png');
      await store.delete(k);
      await store.delete(k);
      await expect(store.head(k)).resolves.toBeNull();
    });

    it('leaves no object when the body stream fails', async () => {
      const k = key();
      const failing = new Readable({
        read() {
          this.push(randomBytes(1024));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store.put(k, failing, 'image/png')).rejects.toThrow('client went away');
      await expect(store.head(k)).resolves.toBeNull();
    });

    it('sweeps transient objects written before the bound, and nothing else', async () => {
      const kept = key();
      const transient = [transientBlobKey(), transientBlobKey()];
      for (const k of [kept, ...transient])
        await store.put(k, Readable.from([Buffer.from('x')]), 'audio/wav');
      // Written just now: not older than a minute ago.
      await expect(store.sweepTransient(new Date(Date.now() - 60_000))).resolves.toBe(0);
      await expect(store.head(transient[0])).resolves.not.toBeNull();
      await expect(store.sweepTransient(new Date(Date.now() + 60_000))).resolves.toBe(2);
      for (const k of transient) await expect(store.head(k)).resolves.toBeNull();
      await expect(store.head(kept)).resolves.not.toBeNull();
      await expect(store.sweepTransient(new Date(Date.now() + 60_000))).resolves.toBe(0);
    });

    it('counts what the transient sweeper removes in gw_transient_blobs_swept_total', async () => {
      const metrics = new AppMetrics('sweeper-test');
      const sweeper = new TransientBlobSweeper(store, 60_000, metrics);
      const swept = async () =>
        (await metrics.registry.getSingleMetric('gw_transient_blobs_swept_total')!.get()).values[0]?.value ??
        0;
      for (let i = 0; i < 3; i++)
        await store.put(transientBlobKey(), Readable.from([Buffer.from('x')]), 'audio/wav');
      await expect(sweeper.sweep()).resolves.toBe(0);
      expect(await swept()).toBe(0);
      // Two minutes on, the three are older than the minute they may live.
      await expect(sweeper.sweep(new Date(Date.now() + 120_000))).resolves.toBe(3);
      expect(await swept()).toBe(3);
      await expect(sweeper.sweep(new Date(Date.now() + 120_000))).resolves.toBe(0);
      expect(await swept()).toBe(3);
      expect(await metrics.registry.metrics()).toContain(
        'gw_transient_blobs_swept_total{service="sweeper-test"} 3',
      );
    });

    it('signs a URL that reads the bytes until it expires', async () => {
      const k = key();
      await store.put(k, Readable.from([Buffer.from('signed bytes')]), 'image/png');
      const url = await store.signedUrl(k, 'image/png', new Date(Date.now() + 60_000));
      expect(url).toMatch(/^http/);
      if (store instanceof S3BlobStore) {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(await response.text()).toBe('signed bytes');
      } else {
        // The gateway serves local URLs; what it checks is the signature in the query.
        const parsed = new URL(url);
        const query = Object.fromEntries(parsed.searchParams);
        expect(verifyBlobQuery(URL_SECRET, k, query)).toBe(true);
        expect(verifyBlobQuery(URL_SECRET, key(), query)).toBe(false);
        expect(verifyBlobQuery(URL_SECRET, k, query, new Date(Date.now() + 120_000))).toBe(false);
        expect(verifyBlobQuery(URL_SECRET, k, { ...query, type: 'text/html' })).toBe(false);
      }
    });
  });
}

blobStoreContract('S3 (s3rver)', async () => {
  const s3: TestS3 = await startTestS3();
  const store = new S3BlobStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  });
  return {
    store,
    close: async () => {
      store.close();
      await s3.stop();
    },
  };
});

blobStoreContract('local disk', () => {
  const directory = mkdtempSync(join(tmpdir(), 'gw-blobs-'));
  const store = new LocalDiskBlobStore({
    directory,
    publicBaseUrl: 'http://localhost:3000/api',
    urlSecret: URL_SECRET,
  });
  return Promise.resolve({
    store,
    close: () => Promise.resolve(rmSync(directory, { recursive: true, force: true })),
  });
});
