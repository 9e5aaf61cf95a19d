import { IsIn, IsString, MinLength, ValidateIf } from 'class-validator';
import { type EnvSchema } from '../env/base-env';

/** Where file bytes live: `s3` (any S3-compatible server) or `local` (a directory, the embedded mode). */
export function WithBlobStore<Base extends EnvSchema>(base: Base) {
  class BlobStoreEnv extends base {
    @IsIn(['local', 's3'])
    BLOB_STORE: 'local' | 's3' = 'local';

    /** The directory of the local store. */
    @IsString()
    BLOB_DIR = '.data/files';

    /** The gateway's public API base (`https://api.example.com/api`); local-store URLs point under it. */
    @ValidateIf((env: BlobStoreEnv) => env.BLOB_STORE === 'local')
    @IsString()
    @MinLength(1)
    BLOB_PUBLIC_URL = 'http://localhost:3000/api';

    /**
     * Signs local-store URLs; the storage service and every gateway replica share it. Unset, the
     * local store keeps files but gives out no url (the embedded mode always sets it).
     */
    @ValidateIf((env: BlobStoreEnv) => env.BLOB_URL_SECRET !== '')
    @IsString()
    @MinLength(16)
    BLOB_URL_SECRET = '';

    /** Empty for AWS S3 itself. */
    @IsString()
    S3_ENDPOINT = '';

    @IsString()
    S3_REGION = 'us-east-1';

    @ValidateIf((env: BlobStoreEnv) => env.BLOB_STORE === 's3')
    @IsString()
    @MinLength(3)
    S3_BUCKET = '';

    @ValidateIf((env: BlobStoreEnv) => env.BLOB_STORE === 's3')
    @IsString()
    @MinLength(1)
    S3_ACCESS_KEY_ID = '';

    @ValidateIf((env: BlobStoreEnv) => env.BLOB_STORE === 's3')
    @IsString()
    @MinLength(1)
    S3_SECRET_ACCESS_KEY = '';

    /** `true` for most S3-compatible servers (bucket in the path, not the host name). */
    @IsIn(['true', 'false'])
    S3_FORCE_PATH_STYLE: 'true' | 'false' = 'false';
  }
  return BlobStoreEnv;
}

export type BlobStoreSettings = InstanceType<ReturnType<typeof WithBlobStore<EnvSchema>>>;
