import {
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
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

export const STORED_FILE_TYPES: readonly StoredFileType[] = ['IMAGE', 'VIDEO', 'AUDIO'];
export const STORAGE_POLICIES: readonly StoragePolicy[] = ['TEMP_UPLOAD', 'TEMP_GENERATION', 'PERMANENT'];
/** What a client may choose for its own upload (DESIGN.md §5.5); TEMP_GENERATION is the media service's. */
export const UPLOAD_POLICIES: readonly StoragePolicy[] = ['TEMP_UPLOAD', 'PERMANENT'];

/**
 * Claim check (docs/decisions.md): bytes never cross NATS. The writer of an object first asks for
 * an upload slot, which records the intent before any byte is written, then streams the object to
 * the blob store under the slot's key, then completes (or aborts) the slot with what it wrote.
 */
export class BeginUploadRequest {
  @PrincipalField()
  principal!: Principal;
}

export interface UploadSlot {
  fileId: string;
  objectKey: string;
  /** The most the object may hold: the upload limit or what is left of the organization's quota. */
  maxBytes: number;
  /** Which of the two bounds maxBytes is, for the 413 a longer object gets. */
  limitedBy: 'file_size' | 'quota';
}

export class CompleteUploadRequest {
  @PrincipalField()
  principal!: Principal;

  @IsUUID()
  fileId!: string;

  @IsIn(STORED_FILE_TYPES)
  fileType!: StoredFileType;

  @IsString()
  @Matches(/^[a-z]+\/[\w.+-]+$/)
  mimeType!: string;

  @IsIn(UPLOAD_POLICIES)
  storagePolicy!: StoragePolicy;

  @ValidateIf((_request, value) => value !== null)
  @IsString()
  @MaxLength(128)
  externalUserId!: string | null;

  /** What the writer counted; the service checks it against the stored object. */
  @IsInt()
  @Min(0)
  size!: number;
}

export class AbortUploadRequest {
  @PrincipalField()
  principal!: Principal;

  @IsUUID()
  fileId!: string;
}

export const StorageContracts = {
  beginUpload: rpc<BeginUploadRequest, UploadSlot>('storage.v1.begin-upload', BeginUploadRequest),
  completeUpload: rpc<CompleteUploadRequest, StoredFile>('storage.v1.complete-upload', CompleteUploadRequest),
  abortUpload: rpc<AbortUploadRequest, { success: true }>('storage.v1.abort-upload', AbortUploadRequest),
  stats: rpc<GetStorageStatsRequest, StorageStats>('storage.v1.stats', GetStorageStatsRequest),
  listFiles: rpc<ListStoredFilesRequest, StoredFilePage>('storage.v1.list-files', ListStoredFilesRequest),
  deleteFile: rpc<DeleteStoredFileRequest, { success: true }>(
    'storage.v1.delete-file',
    DeleteStoredFileRequest,
  ),
} as const;
