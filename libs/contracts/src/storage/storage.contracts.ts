import { rpc } from '../contract';
import type { Principal } from '../principal';

export type StoredFileType = 'IMAGE' | 'VIDEO' | 'AUDIO';
export type StoredFileSource = 'USER_UPLOAD' | 'AI_GENERATION';
export type StoragePolicy = 'TEMP_UPLOAD' | 'TEMP_GENERATION' | 'PERMANENT';

/** The "Stored file" resource of the interface. */
export interface StoredFile {
  id: string;
  fileType: StoredFileType;
  mimeType: string;
  source: StoredFileSource;
  storagePolicy: StoragePolicy;
  url: string;
  size: number;
  createdAt: string;
  updatedAt: string;
  externalUserId: string | null;
  expiresAt: string | null;
}

export interface ListStoredFilesQuery {
  page: number;
  limit: number;
  fileType?: StoredFileType;
  source?: StoredFileSource;
  storagePolicy?: StoragePolicy;
  externalUserId?: string;
  sortBy: 'createdAt' | 'size' | 'expiresAt' | 'externalUserId';
  sortOrder: 'asc' | 'desc';
}

export interface ListStoredFilesRequest {
  principal: Principal;
  query: ListStoredFilesQuery;
}

export interface StoredFilePage {
  data: StoredFile[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}

export interface DeleteStoredFileRequest {
  principal: Principal;
  id: string;
}

export interface StorageStats {
  usedBytes: number;
  totalBytes: number;
  fileCount: number;
  filesByType: Record<StoredFileType, number>;
  filesByPolicy: Record<StoragePolicy, number>;
  usagePercent: number;
}

export interface GetStorageStatsRequest {
  principal: Principal;
}

export const StorageContracts = {
  stats: rpc<GetStorageStatsRequest, StorageStats>('storage.v1.stats'),
  listFiles: rpc<ListStoredFilesRequest, StoredFilePage>('storage.v1.list-files'),
  deleteFile: rpc<DeleteStoredFileRequest, { success: true }>('storage.v1.delete-file'),
} as const;
