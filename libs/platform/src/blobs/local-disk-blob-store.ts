import { DomainError } from '@gw/contracts';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type BlobInfo,
  type BlobObject,
  type BlobStore,
  isBlobKey,
  isTransientBlobKey,
  TRANSIENT_BLOB_PREFIX,
} from './blob-store';
import { signBlobQuery } from './blob-url-signature';

export interface LocalDiskBlobStoreOptions {
  directory: string;
  /** The gateway's public API base, e.g. `http://localhost:3000/api`; signed URLs point under it. */
  publicBaseUrl: string;
  /** Signs the URLs; the gateway checks them with the same secret. Empty: no urls are given out. */
  urlSecret: string;
}

/** The route of the gateway that serves signed local-disk URLs (StoredFileContentController). */
export const LOCAL_BLOB_ROUTE = 'v1/storage/content';

/**
 * The embedded mode's blob store: one file per object under `directory`, its content type in a
 * sidecar. A put writes a temporary file and renames it into place, so a reader never sees half an
 * object and a failed put leaves none.
 */
export class LocalDiskBlobStore implements BlobStore {
  constructor(private readonly options: LocalDiskBlobStoreOptions) {}

  async put(key: string, body: Readable, contentType: string): Promise<BlobInfo> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomUUID()}.partial`;
    try {
      await pipeline(body, createWriteStream(partial));
      await writeFile(`${path}.type`, contentType);
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return { size: (await stat(path)).size, contentType };
  }

  async head(key: string): Promise<BlobInfo | null> {
    const path = this.pathOf(key);
    try {
      const [info, contentType] = await Promise.all([stat(path), readFile(`${path}.type`, 'utf8')]);
      return { size: info.size, contentType };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async get(key: string): Promise<BlobObject | null> {
    const info = await this.head(key);
    return info && { ...info, body: createReadStream(this.pathOf(key)) };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(`${path}.type`, { force: true });
  }

  signedUrl(key: string, contentType: string, expiresAt: Date): Promise<string> {
    if (!this.options.urlSecret)
      return Promise.reject(
        new DomainError('service_unavailable', 'File urls are not configured: set BLOB_URL_SECRET'),
      );
    const query = signBlobQuery(this.options.urlSecret, key, contentType, expiresAt);
    return Promise.resolve(`${this.options.publicBaseUrl}/${LOCAL_BLOB_ROUTE}/${key}?${query}`);
  }

  async sweepTransient(before: Date): Promise<number> {
    const directory = join(this.options.directory, TRANSIENT_BLOB_PREFIX);
    const names = await readdir(directory).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    let removed = 0;
    // Objects, their type sidecars and the `.partial` files of puts a crash cut off alike.
    for (const name of names) {
      const path = join(directory, name);
      const info = await stat(path).catch(() => null);
      if (!info || info.mtime >= before) continue;
      await rm(path, { force: true });
      if (!name.includes('.')) removed += 1;
    }
    return removed;
  }

  private pathOf(key: string): string {
    // Keys are checked, not escaped: a key is two uuids (or `transient/` and one), so no path can climb out.
    if (!isBlobKey(key) && !isTransientBlobKey(key)) throw new Error(`Not a blob key: ${key}`);
    return join(this.options.directory, key);
  }
}
