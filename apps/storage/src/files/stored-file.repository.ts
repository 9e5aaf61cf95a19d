import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  type ListStoredFilesQuery,
  type StoragePolicy,
  type StoredFileSource,
  type StoredFileType,
} from '@gw/contracts';
import { type FindOptionsWhere, Repository } from 'typeorm';
import { StoredFileEntity } from './stored-file.entity';

/** What completing an upload writes into its record. */
export interface CompletedFile {
  fileType: StoredFileType;
  mimeType: string;
  storagePolicy: StoragePolicy;
  externalUserId: string | null;
  size: number;
  expiresAt: Date | null;
}

/** A record the sweeper took, and why. */
export interface SweptFile {
  id: string;
  objectKey: string;
  reason: 'expired' | 'abandoned_upload' | 'unfinished_delete';
}

@Injectable()
export class StoredFileRepository {
  constructor(@InjectRepository(StoredFileEntity) private readonly rows: Repository<StoredFileEntity>) {}

  /**
   * The page and its total from one snapshot: findAndCount's two statements would otherwise each see
   * the records committed by then, and a page could fall short of what its total promises.
   */
  async page(organizationId: string, query: ListStoredFilesQuery): Promise<[StoredFileEntity[], number]> {
    const where: FindOptionsWhere<StoredFileEntity> = { organizationId, status: 'stored' };
    if (query.fileType) where.fileType = query.fileType;
    if (query.source) where.source = query.source;
    if (query.storagePolicy) where.storagePolicy = query.storagePolicy;
    if (query.externalUserId) where.externalUserId = query.externalUserId;
    return this.rows.manager.transaction('REPEATABLE READ', (manager) =>
      manager.findAndCount(StoredFileEntity, {
        where,
        order: { [query.sortBy]: query.sortOrder.toUpperCase(), id: 'ASC' },
        skip: (query.page - 1) * query.limit,
        take: query.limit,
      }),
    );
  }

  /** Bytes and counts per file type and storage policy of the organization's stored files. */
  async totals(
    organizationId: string,
  ): Promise<
    Array<{ fileType: StoredFileType; storagePolicy: StoragePolicy; files: number; bytes: number }>
  > {
    const rows: Array<{
      fileType: StoredFileType;
      storagePolicy: StoragePolicy;
      files: string;
      bytes: string;
    }> = await this.rows
      .createQueryBuilder('f')
      .select('f.fileType', 'fileType')
      .addSelect('f.storagePolicy', 'storagePolicy')
      .addSelect('COUNT(*)', 'files')
      .addSelect('COALESCE(SUM(f.size), 0)', 'bytes')
      .where('f.organizationId = :organizationId', { organizationId })
      .andWhere(`f.status = 'stored'`)
      .groupBy('f.fileType')
      .addGroupBy('f.storagePolicy')
      .getRawMany();
    return rows.map((r) => ({
      fileType: r.fileType,
      storagePolicy: r.storagePolicy,
      files: Number(r.files),
      bytes: Number(r.bytes),
    }));
  }

  async usedBytes(organizationId: string): Promise<number> {
    const [row] = await this.rows.query<Array<{ bytes: string }>>(
      `SELECT COALESCE(SUM(size), 0) AS bytes FROM storage.files WHERE organization_id = $1 AND status = 'stored'`,
      [organizationId],
    );
    return Number(row.bytes);
  }

  /** Records the intent to write `objectKey` before any byte of it is written. */
  async insertPending(
    id: string,
    organizationId: string,
    objectKey: string,
    source: StoredFileSource,
  ): Promise<void> {
    await this.rows.query(
      `INSERT INTO storage.files (id, organization_id, object_key, source, status) VALUES ($1, $2, $3, $4, 'pending')`,
      [id, organizationId, objectKey, source],
    );
  }

  /**
   * Turns a pending record into a stored file when the organization's quota holds it. One
   * organization's completions queue on a transaction-scoped advisory lock, so two concurrent
   * uploads cannot both fit into the last free bytes; other organizations are not held up.
   */
  async complete(
    organizationId: string,
    id: string,
    file: CompletedFile,
    quotaBytes: number,
  ): Promise<StoredFileEntity | 'not_pending' | 'over_quota'> {
    return this.rows.manager.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [organizationId]);
      const [used] = await manager.query<Array<{ bytes: string }>>(
        `SELECT COALESCE(SUM(size), 0) AS bytes FROM storage.files WHERE organization_id = $1 AND status = 'stored'`,
        [organizationId],
      );
      if (Number(used.bytes) + file.size > quotaBytes) return 'over_quota';
      const [rows] = await manager.query<[Array<{ id: string }>, number]>(
        `UPDATE storage.files
            SET status = 'stored', file_type = $3, mime_type = $4, storage_policy = $5,
                external_user_id = $6, size = $7, expires_at = $8, updated_at = now()
          WHERE id = $1 AND organization_id = $2 AND status = 'pending'
          RETURNING id`,
        [
          id,
          organizationId,
          file.fileType,
          file.mimeType,
          file.storagePolicy,
          file.externalUserId,
          file.size,
          file.expiresAt,
        ],
      );
      if (rows.length === 0) return 'not_pending';
      return manager.findOneByOrFail(StoredFileEntity, { id });
    });
  }

  async pendingKey(organizationId: string, id: string, source: StoredFileSource): Promise<string | null> {
    const row = await this.rows.findOneBy({ organizationId, id, source, status: 'pending' });
    return row?.objectKey ?? null;
  }

  /**
   * Takes a record of the organization out of every list and statistic before its object is
   * removed, for `leaseMs`. A record already being deleted is taken again, so a retried delete
   * finishes what a failed one left. Answers the object key, or null when there is no such record.
   */
  async markDeleting(
    organizationId: string,
    id: string,
    statuses: Array<'pending' | 'stored' | 'deleting'>,
    leaseMs: number,
  ): Promise<string | null> {
    const [rows] = await this.rows.query<[Array<{ object_key: string }>, number]>(
      `UPDATE storage.files
          SET status = 'deleting', claimed_until = now() + make_interval(secs => $4::double precision / 1000)
        WHERE id = $1 AND organization_id = $2 AND status = ANY($3::text[])
        RETURNING object_key`,
      [id, organizationId, statuses, leaseMs],
    );
    return rows[0]?.object_key ?? null;
  }

  /** Drops a record whose object is gone. */
  async remove(id: string): Promise<void> {
    await this.rows.query(`DELETE FROM storage.files WHERE id = $1 AND status = 'deleting'`, [id]);
  }

  /**
   * Claims up to `limit` records to remove: stored files past their expiry, uploads pending longer
   * than `pendingTtlMs`, deletions whose lease ran out. SKIP LOCKED and the lease keep replicas off
   * each other's records: each is claimed by one sweeper, and a crashed sweeper's claim returns
   * once its lease ends.
   */
  async claimSweepable(limit: number, pendingTtlMs: number, leaseMs: number): Promise<SweptFile[]> {
    const [rows] = await this.rows.query<
      [Array<{ id: string; object_key: string; reason: SweptFile['reason'] }>, number]
    >(
      `WITH due AS (
         SELECT id, CASE status WHEN 'stored' THEN 'expired' WHEN 'pending' THEN 'abandoned_upload'
                     ELSE 'unfinished_delete' END AS reason
           FROM storage.files
          WHERE (status = 'stored' AND expires_at <= now())
             OR (status = 'pending' AND created_at <= now() - make_interval(secs => $2::double precision / 1000))
             OR (status = 'deleting' AND claimed_until <= now())
          ORDER BY created_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED
       )
       UPDATE storage.files f
          SET status = 'deleting', claimed_until = now() + make_interval(secs => $3::double precision / 1000)
         FROM due WHERE f.id = due.id
       RETURNING f.id, f.object_key, due.reason`,
      [limit, pendingTtlMs, leaseMs],
    );
    return rows.map((r) => ({ id: r.id, objectKey: r.object_key, reason: r.reason }));
  }
}
