import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { rpc, stream } from '@gw/contracts';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import {
  expectEventually,
  startTestNats,
  startTestS3,
  type TestNats,
  type TestS3,
  uniqueSuffix,
} from '@gw/testing';
import { IsInt, IsString } from 'class-validator';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, toArray } from 'rxjs';
import { type BlobStore } from '../blobs/blob-store';
import { S3BlobStore } from '../blobs/s3-blob-store';
import { serviceTransport } from '../bootstrap/start-service';
import { RpcErrorFilter } from '../errors/rpc-error.filter';
import { HandlesRpc } from './handles';
import { RpcClient } from './rpc-client';
import { type TransportOptions } from './transport-options';
import { TransportModule } from './transport.module';

class TextRequest {
  @IsString()
  text!: string;
}

const suffix = uniqueSuffix();
const Digest = rpc<TextRequest, { length: number; sha256: string }>(`test.${suffix}.digest`, TextRequest);
const Pieces = stream<TextRequest, number>(`test.${suffix}.pieces`, TextRequest);
class SizeRequest {
  @IsInt()
  bytes!: number;
}
const Large = rpc<SizeRequest, { text: string }>(`test.${suffix}.large`, SizeRequest);
const LargePieces = stream<SizeRequest, { text: string }>(`test.${suffix}.large-pieces`, SizeRequest);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

@Controller()
class DigestHandler {
  @HandlesRpc(Digest)
  digest(request: TextRequest) {
    return { length: request.text.length, sha256: sha256(request.text) };
  }

  @HandlesRpc(Pieces)
  pieces(request: TextRequest) {
    return from([request.text.length, 1, 2]);
  }

  @HandlesRpc(Large)
  large(request: SizeRequest) {
    return { text: text(request.bytes) };
  }

  /** A small piece, one above the bus's limit, and a small one again. */
  @HandlesRpc(LargePieces)
  largePieces(request: SizeRequest) {
    return from([{ text: 'first' }, { text: text(request.bytes) }, { text: 'last' }]);
  }
}

@Module({ controllers: [DigestHandler] })
class DigestModule {}

/** ASCII and multi-byte text, so the size in bytes is what decides, not the length in characters. */
const text = (bytes: number) => 'ab€'.repeat(Math.ceil(bytes / 5)).slice(0, Math.ceil((bytes * 3) / 5));

describe('claim checks over NATS with its default 1 MB max_payload and s3rver', () => {
  let nats: TestNats;
  let s3: TestS3;
  let blobs: BlobStore;
  const closers: Array<() => Promise<void>> = [];

  /**
   * A service and a client on the private nats-server, each with or without the blob store. The
   * previous test's pair is closed first: its service would answer too, and stage a reply no one reads.
   */
  async function connect(serviceBlobs: BlobStore | undefined, clientBlobs: BlobStore | undefined) {
    for (const close of closers.splice(0)) await close();
    const options = (stage?: BlobStore): TransportOptions => ({
      kind: 'nats',
      servers: nats.url,
      rpcTimeoutMs: 5_000,
      blobs: stage,
    });
    const service: INestMicroservice = await NestFactory.createMicroservice(DigestModule, {
      ...serviceTransport(options(serviceBlobs), `test-${uniqueSuffix()}`),
      logger: false,
    });
    service.useGlobalFilters(new RpcErrorFilter());
    await service.listen();
    const moduleRef = await Test.createTestingModule({
      imports: [TransportModule.forRoot(options(clientBlobs))],
    }).compile();
    await moduleRef.init();
    closers.push(async () => {
      await moduleRef.close();
      await service.close();
    });
    return moduleRef.get(RpcClient);
  }

  /** Transient objects left behind by the calls so far; the sender removes its own without waiting, so within a bound. */
  const noLeftovers = () =>
    expectEventually(async () => {
      const listed = await new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      }).send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'transient/' }));
      expect(listed.KeyCount ?? 0).toBe(0);
    });

  beforeAll(async () => {
    [nats, s3] = await Promise.all([startTestNats(), startTestS3()]);
    blobs = new S3BlobStore({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
  });

  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await s3.stop();
    await nats.stop();
  });

  it.each([
    ['1.1 MB', 1_100_000],
    ['5 MB', 5_000_000],
  ])('delivers a %s request whole and leaves no object behind', async (_label, bytes) => {
    const client = await connect(blobs, blobs);
    const payload = text(bytes);
    expect(Buffer.byteLength(JSON.stringify({ text: payload }))).toBeGreaterThan(bytes * 0.99);
    await expect(client.request(Digest, { text: payload })).resolves.toEqual({
      length: payload.length,
      sha256: sha256(payload),
    });
    await noLeftovers();
  });

  it('sends a small request as it is, without touching the store', async () => {
    const client = await connect(blobs, blobs);
    await expect(client.request(Digest, { text: 'short' })).resolves.toMatchObject({ length: 5 });
    await noLeftovers();
  });

  it('delivers a large request to a streaming handler', async () => {
    const client = await connect(blobs, blobs);
    const payload = text(2_000_000);
    await expect(lastValueFrom(client.stream(Pieces, { text: payload }).pipe(toArray()))).resolves.toEqual([
      payload.length,
      1,
      2,
    ]);
    await noLeftovers();
  });

  it.each([
    ['1.1 MB', 1_100_000],
    ['5 MB', 5_000_000],
  ])('answers with a %s reply whole and leaves no object behind', async (_label, bytes) => {
    const client = await connect(blobs, blobs);
    await expect(client.request(Large, { bytes })).resolves.toEqual({ text: text(bytes) });
    await noLeftovers();
  });

  it('streams a piece above the limit in its place among the small ones', async () => {
    const client = await connect(blobs, blobs);
    await expect(
      lastValueFrom(client.stream(LargePieces, { bytes: 2_000_000 }).pipe(toArray())),
    ).resolves.toEqual([{ text: 'first' }, { text: text(2_000_000) }, { text: 'last' }]);
    await noLeftovers();
  });

  it('answers 413 at once for a reply above the limit from a service without a blob store', async () => {
    const client = await connect(undefined, blobs);
    await expect(client.request(Large, { bytes: 1_500_000 })).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
    });
  });

  it('refuses with 413 a large request from an app without a blob store, before sending it', async () => {
    const client = await connect(blobs, undefined);
    await expect(client.request(Digest, { text: text(1_500_000) })).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
    });
  });

  it('answers 413 from a service without a blob store, and the sender removes its object', async () => {
    const client = await connect(undefined, blobs);
    await expect(client.request(Digest, { text: text(1_500_000) })).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
    });
    await noLeftovers();
  });
});
