import { resolve } from 'node:path';
import { type BlobStore } from './blob-store';
import { type BlobStoreSettings } from './blob-store-env';
import { LocalDiskBlobStore } from './local-disk-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The blob store the environment names. */
export function createBlobStore(env: BlobStoreSettings): BlobStore {
  switch (env.BLOB_STORE) {
    case 's3':
      return new S3BlobStore({
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        bucket: env.S3_BUCKET,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      });
    case 'local':
      return new LocalDiskBlobStore({
        directory: resolve(env.BLOB_DIR),
        publicBaseUrl: env.BLOB_PUBLIC_URL.replace(/\/+$/, ''),
        urlSecret: env.BLOB_URL_SECRET,
      });
  }
}
