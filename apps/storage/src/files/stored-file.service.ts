import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  ListStoredFilesQuery,
  Principal,
  StorageStats,
  StoredFile,
  StoredFilePage,
} from '@gw/contracts';
import { StoredFileEntity } from './stored-file.entity';
import { StoredFileRepository } from './stored-file.repository';

export const STORAGE_QUOTA_BYTES = Symbol('STORAGE_QUOTA_BYTES');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class StoredFileService {
  constructor(
    private readonly files: StoredFileRepository,
    @Inject(STORAGE_QUOTA_BYTES) private readonly quotaBytes: number,
  ) {}

  /** Only an organization admin signed in to the console sees the statistics (interface, Authentication 4). */
  async stats(principal: Principal): Promise<StorageStats> {
    if (principal.kind !== 'user' || principal.role !== 'admin') {
      throw new DomainError(
        'forbidden',
        'Storage statistics are for organization admins signed in to the console',
      );
    }
    return storageStats(await this.files.totals(principal.organizationId), this.quotaBytes);
  }

  async list(principal: Principal, query: ListStoredFilesQuery): Promise<StoredFilePage> {
    const [rows, total] = await this.files.page(principal.organizationId, query);
    return {
      data: rows.map(toStoredFile),
      meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
    };
  }

  async delete(principal: Principal, id: string): Promise<{ success: true }> {
    const deleted = UUID.test(id) && (await this.files.delete(principal.organizationId, id));
    if (!deleted) throw new DomainError('not_found', `File ${id} not found`, 'id');
    return { success: true };
  }
}

function toStoredFile(row: StoredFileEntity): StoredFile {
  return {
    id: row.id,
    fileType: row.fileType,
    mimeType: row.mimeType,
    source: row.source,
    storagePolicy: row.storagePolicy,
    url: row.url,
    size: row.size,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    externalUserId: row.externalUserId,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
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
