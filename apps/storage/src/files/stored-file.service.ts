import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type CompleteUploadRequest,
  DomainError,
  type ListStoredFilesQuery,
  type Principal,
  type RegisterGeneratedFileRequest,
  type StorageStats,
  type StoredFile,
  type StoredFileSource,
  type StoredFilePage,
  type StoredFileType,
  storageQuotaExceeded,
  storedFileTooLarge,
  type UploadSlot,
} from '@gw/contracts';
import { BLOB_STORE, type BlobStore, blobKey, parseBlobKey } from '@gw/platform/blobs';
import { randomUUID } from 'node:crypto';
import { STORAGE_SETTINGS, type StorageSettings } from './storage-settings';
import { type StoredFileEntity } from './stored-file.entity';
import { type CompletedFile, StoredFileRepository } from './stored-file.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long a delete in progress is its caller's before the sweeper may finish it. */
export const DELETE_LEASE_MS = 60_000;

@Injectable()
export class StoredFileService {
  private readonly logger = new Logger('StoredFileService');

  constructor(
    private readonly files: StoredFileRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(STORAGE_SETTINGS) private readonly settings: StorageSettings,
  ) {}

  /** Only an organization admin signed in to the console sees the statistics (interface, Authentication 4). */
  async stats(principal: Principal): Promise<StorageStats> {
    if (principal.kind !== 'user' || principal.role !== 'admin') {
      throw new DomainError(
        'forbidden',
        'Storage statistics are for organization admins signed in to the console',
      );
    }
    return storageStats(await this.files.totals(principal.organizationId), this.settings.quotaBytes);
  }

  async list(principal: Principal, query: ListStoredFilesQuery): Promise<StoredFilePage> {
    const [rows, total] = await this.files.page(principal.organizationId, query);
    return {
      data: await Promise.all(rows.map((row) => this.toStoredFile(row))),
      meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
    };
  }

  /**
   * Records the intent to write an object before the caller writes it (claim check, see the
   * contracts): a client's upload through the gateway, or a file a service generated.
   */
  async beginUpload(organizationId: string, source: StoredFileSource): Promise<UploadSlot> {
    const used = await this.files.usedBytes(organizationId);
    if (used >= this.settings.quotaBytes) throw storageQuotaExceeded();
    const fileId = randomUUID();
    const objectKey = blobKey(organizationId, fileId);
    await this.files.insertPending(fileId, organizationId, objectKey, source);
    const left = this.settings.quotaBytes - used;
    return {
      fileId,
      objectKey,
      maxBytes: Math.min(this.settings.maxFileBytes, left),
      limitedBy: left < this.settings.maxFileBytes ? 'quota' : 'file_size',
    };
  }

  async completeUpload(request: CompleteUploadRequest): Promise<StoredFile> {
    const { principal, fileId } = request;
    return this.complete(principal.organizationId, fileId, 'USER_UPLOAD', request.size, {
      fileType: request.fileType,
      mimeType: request.mimeType,
      storagePolicy: request.storagePolicy,
      externalUserId: request.externalUserId,
    });
  }

  /** A generated file is an upload of the producer's: the same checks, quota and lifecycle. */
  async registerGenerated(request: RegisterGeneratedFileRequest): Promise<StoredFile> {
    const { organizationId, objectKey } = request;
    return this.complete(
      organizationId,
      this.fileIdOf(organizationId, objectKey),
      'AI_GENERATION',
      request.size,
      {
        fileType: fileTypeOf(request.contentType),
        mimeType: request.contentType,
        storagePolicy: request.storagePolicy,
        externalUserId: request.externalUserId,
      },
    );
  }

  async abortUpload(organizationId: string, fileId: string): Promise<{ success: true }> {
    await this.discard(organizationId, fileId);
    return { success: true };
  }

  async abortGenerated(organizationId: string, objectKey: string): Promise<{ success: true }> {
    return this.abortUpload(organizationId, this.fileIdOf(organizationId, objectKey));
  }

  /**
   * Takes the record out of view first, then removes the object, then the record. A failure after
   * the first step leaves a `deleting` record that a retried delete or the sweeper finishes: never
   * a record without an object in the list, never an object without a record.
   */
  async delete(principal: Principal, id: string): Promise<{ success: true }> {
    const objectKey = UUID.test(id)
      ? await this.files.markDeleting(principal.organizationId, id, ['stored', 'deleting'], DELETE_LEASE_MS)
      : null;
    if (!objectKey) throw new DomainError('not_found', `File ${id} not found`, 'id');
    await this.blobs.delete(objectKey);
    await this.files.remove(id);
    return { success: true };
  }

  /**
   * Lists the written object as a file once its size is confirmed and the quota holds it; otherwise
   * removes object and record, so a refused upload leaves nothing behind. Only a pending record of
   * `source` is completed: a producer cannot turn a client's upload into its own, nor the reverse.
   */
  private async complete(
    organizationId: string,
    fileId: string,
    source: StoredFileSource,
    size: number,
    file: Omit<CompletedFile, 'size' | 'expiresAt'>,
  ): Promise<StoredFile> {
    const objectKey = await this.files.pendingKey(organizationId, fileId, source);
    if (!objectKey) throw new DomainError('not_found', `Upload ${fileId} not found`, 'fileId');
    const object = await this.blobs.head(objectKey);
    if (!object || object.size !== size) {
      await this.discard(organizationId, fileId);
      throw new DomainError('invalid_request', 'The uploaded object is missing or incomplete', 'file');
    }
    if (object.size > this.settings.maxFileBytes) {
      await this.discard(organizationId, fileId);
      throw storedFileTooLarge(this.settings.maxFileBytes);
    }
    const lifetime = this.settings.lifetimeMs[file.storagePolicy];
    const completed = await this.files.complete(
      organizationId,
      fileId,
      { ...file, size: object.size, expiresAt: lifetime === null ? null : new Date(Date.now() + lifetime) },
      this.settings.quotaBytes,
    );
    if (completed === 'not_pending')
      throw new DomainError('not_found', `Upload ${fileId} not found`, 'fileId');
    if (completed === 'over_quota') {
      await this.discard(organizationId, fileId);
      throw storageQuotaExceeded();
    }
    return this.toStoredFile(completed);
  }

  /** The file a slot's key names, when it is the organization's. */
  private fileIdOf(organizationId: string, objectKey: string): string {
    const named = parseBlobKey(objectKey);
    if (named?.organizationId !== organizationId)
      throw new DomainError('not_found', `Generated file ${objectKey} not found`, 'objectKey');
    return named.fileId;
  }

  private async discard(organizationId: string, fileId: string): Promise<void> {
    const objectKey = await this.files.markDeleting(organizationId, fileId, ['pending'], DELETE_LEASE_MS);
    if (!objectKey) return;
    try {
      await this.blobs.delete(objectKey);
      await this.files.remove(fileId);
    } catch (err) {
      // The record stays `deleting`; the sweeper finishes it when the lease ends.
      this.logger.warn(`Could not discard upload ${fileId} yet: ${(err as Error).message}`);
    }
  }

  private async toStoredFile(row: StoredFileEntity): Promise<StoredFile> {
    const mimeType = row.mimeType ?? 'application/octet-stream';
    const urlEnds = Math.min(Date.now() + this.settings.urlTtlMs, row.expiresAt?.getTime() ?? Infinity);
    return {
      id: row.id,
      fileType: row.fileType ?? 'IMAGE',
      mimeType,
      source: row.source,
      storagePolicy: row.storagePolicy ?? 'PERMANENT',
      url: await this.blobs.signedUrl(row.objectKey, mimeType, new Date(urlEnds)),
      size: row.size,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      externalUserId: row.externalUserId,
      expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    };
  }
}

/** Which kind of file a content type names; the contract admits only these three families. */
function fileTypeOf(contentType: string): StoredFileType {
  if (contentType.startsWith('video/')) return 'VIDEO';
  if (contentType.startsWith('audio/')) return 'AUDIO';
  return 'IMAGE';
}

export function storageStats(
  totals: Array<{
    fileType: StoredFile['fileType'];
    storagePolicy: StoredFile['storagePolicy'];
    files: number;
    bytes: number;
  }>,
  totalBytes: number,
): StorageStats {
  const stats: StorageStats = {
    usedBytes: 0,
    totalBytes,
    fileCount: 0,
    filesByType: { IMAGE: 0, VIDEO: 0, AUDIO: 0 },
    filesByPolicy: { TEMP_UPLOAD: 0, TEMP_GENERATION: 0, PERMANENT: 0 },
    usagePercent: 0,
  };
  for (const row of totals) {
    stats.usedBytes += row.bytes;
    stats.fileCount += row.files;
    stats.filesByType[row.fileType] += row.files;
    stats.filesByPolicy[row.storagePolicy] += row.files;
  }
  stats.usagePercent = Math.round((stats.usedBytes / totalBytes) * 10_000) / 100;
  return stats;
}
