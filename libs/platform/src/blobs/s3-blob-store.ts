import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type Readable } from 'node:stream';
import { type BlobInfo, type BlobObject, type BlobStore, TRANSIENT_BLOB_PREFIX } from './blob-store';

export interface S3BlobStoreOptions {
  /** Empty for AWS itself; an S3-compatible server's URL otherwise. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/** S3's smallest part but the last; a part is the most a put holds in memory. */
const PART_BYTES = 8 * 1024 * 1024;
/** S3 signs a URL for at most seven days. */
const MAX_URL_SECONDS = 7 * 24 * 3600;

/**
 * The distributed mode's blob store. A put of unknown length goes up in parts of 8 MB, one at a
 * time, so a file of any size costs one part of memory; a file under one part is a single put.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      endpoint: options.endpoint || undefined,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      // Streamed bodies get aws-chunked framing stored inside the object by S3-compatible servers,
      // and presigned URLs a checksum of an empty body (STACK-NOTES §4): only what S3 requires.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable, contentType: string): Promise<BlobInfo> {
    const chunks = partsOf(body);
    const first = await chunks.next();
    const firstPart = first.done ? Buffer.alloc(0) : first.value;
    if (firstPart.length < PART_BYTES) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: firstPart, ContentType: contentType }),
      );
      return { size: firstPart.length, contentType };
    }
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    const parts: Array<{ ETag: string | undefined; PartNumber: number }> = [];
    let size = 0;
    try {
      for (let part: Buffer | undefined = firstPart; part; part = await nextPart(chunks)) {
        const PartNumber = parts.length + 1;
        const { ETag } = await this.client.send(
          new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId, PartNumber, Body: part }),
        );
        parts.push({ ETag, PartNumber });
        size += part.length;
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw err;
    }
    return { size, contentType };
  }

  async head(key: string): Promise<BlobInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async get(key: string): Promise<BlobObject | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: object.ContentLength ?? 0,
        contentType: object.ContentType ?? 'application/octet-stream',
        body: object.Body as Readable,
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async sweepTransient(before: Date): Promise<number> {
    let removed = 0;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: TRANSIENT_BLOB_PREFIX, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key || !object.LastModified || object.LastModified >= before) continue;
        await this.delete(object.Key);
        removed += 1;
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return removed;
  }

  signedUrl(key: string, contentType: string, expiresAt: Date): Promise<string> {
    const seconds = Math.ceil((expiresAt.getTime() - Date.now()) / 1000);
    return getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentType: contentType }),
      { expiresIn: Math.min(Math.max(seconds, 1), MAX_URL_SECONDS) },
    );
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)
  );
}

async function nextPart(parts: AsyncGenerator<Buffer>): Promise<Buffer | undefined> {
  const next = await parts.next();
  return next.done ? undefined : next.value;
}

/**
 * The stream cut into parts of exactly PART_BYTES, the last one shorter, all in one buffer that is
 * filled again for the next part: a part is valid until the next one is asked for. A put thus
 * holds one part, and leaves no part-sized garbage behind for the collector to find late.
 */
async function* partsOf(body: Readable): AsyncGenerator<Buffer> {
  const part = Buffer.allocUnsafe(PART_BYTES);
  let filled = 0;
  let yielded = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    for (let offset = 0; offset < chunk.length;) {
      const copied = chunk.copy(part, filled, offset);
      filled += copied;
      offset += copied;
      if (filled === PART_BYTES) {
        yield part;
        yielded = true;
        filled = 0;
      }
    }
  }
  // An empty stream is one empty object; an empty last part is none (S3 refuses it).
  if (filled > 0 || !yielded) yield part.subarray(0, filled);
}
