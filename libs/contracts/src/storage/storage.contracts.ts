import { IsObject, IsString } from 'class-validator';
import { rpc } from '../contract';
import { type Principal, PrincipalField } from '../principal';

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

/** The query is the public API's, validated by the stored-file query DTO of the dto library (see StoredFileHandler). */
export class ListStoredFilesRequest {
  @PrincipalField()
  principal!: Principal;

  @IsObject()
  query!: ListStoredFilesQuery;
}

export interface StoredFilePage {
  data: StoredFile[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}

export class DeleteStoredFileRequest {
  @PrincipalField()
  principal!: Principal;

  @IsString()
  id!: string;
}

export interface StorageStats {
  usedBytes: number;
  totalBytes: number;
  fileCount: number;
  filesByType: Record<StoredFileType, number>;
  filesByPolicy: Record<StoragePolicy, number>;
  usagePercent: number;
}

export class GetStorageStatsRequest {
  @PrincipalField()
  principal!: Principal;
}

export const StorageContracts = {
  stats: rpc<GetStorageStatsRequest, StorageStats>('storage.v1.stats', GetStorageStatsRequest),
  listFiles: rpc<ListStoredFilesRequest, StoredFilePage>('storage.v1.list-files', ListStoredFilesRequest),
  deleteFile: rpc<DeleteStoredFileRequest, { success: true }>(
    'storage.v1.delete-file',
    DeleteStoredFileRequest,
  ),
} as const;
