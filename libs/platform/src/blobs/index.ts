export * from './blob-store';
export * from './blob-store-env';
export * from './blob-url-signature';
export * from './create-blob-store';
export * from './local-disk-blob-store';
export * from './s3-blob-store';
export * from './transient-blob-sweeper';
