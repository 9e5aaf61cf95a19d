import { type StoragePolicy } from '@gw/contracts';
import { type StorageEnv } from '../storage.env';

/** The storage service's limits and lifetimes, read from its environment once. */
export interface StorageSettings {
  quotaBytes: number;
  maxFileBytes: number;
  /** Lifetime by policy; null: the file does not expire. */
  lifetimeMs: Record<StoragePolicy, number | null>;
  urlTtlMs: number;
  pendingUploadTtlMs: number;
  sweepIntervalMs: number;
}

export const STORAGE_SETTINGS = Symbol('STORAGE_SETTINGS');

export function storageSettings(env: StorageEnv): StorageSettings {
  return {
    quotaBytes: env.STORAGE_QUOTA_BYTES,
    maxFileBytes: env.STORAGE_MAX_FILE_BYTES,
    lifetimeMs: {
      TEMP_UPLOAD: env.STORAGE_TEMP_UPLOAD_TTL_MS,
      TEMP_GENERATION: env.STORAGE_TEMP_GENERATION_TTL_MS,
      PERMANENT: null,
    },
    urlTtlMs: env.STORAGE_URL_TTL_MS,
    pendingUploadTtlMs: env.STORAGE_PENDING_UPLOAD_TTL_MS,
    sweepIntervalMs: env.STORAGE_SWEEP_INTERVAL_MS,
  };
}
