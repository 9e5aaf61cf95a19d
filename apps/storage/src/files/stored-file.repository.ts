import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ListStoredFilesQuery, StoragePolicy, StoredFileType } from '@gw/contracts';
import { FindOptionsWhere, Repository } from 'typeorm';
import { StoredFileEntity } from './stored-file.entity';

@Injectable()
export class StoredFileRepository {
  constructor(@InjectRepository(StoredFileEntity) private readonly rows: Repository<StoredFileEntity>) {}

  async page(organizationId: string, query: ListStoredFilesQuery): Promise<[StoredFileEntity[], number]> {
    const where: FindOptionsWhere<StoredFileEntity> = { organizationId };
    if (query.fileType) where.fileType = query.fileType;
    if (query.source) where.source = query.source;
    if (query.storagePolicy) where.storagePolicy = query.storagePolicy;
    if (query.externalUserId) where.externalUserId = query.externalUserId;
    return this.rows.findAndCount({
      where,
      order: { [query.sortBy]: query.sortOrder.toUpperCase(), id: 'ASC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
  }

  /** Bytes and counts per file type and storage policy, of one organization. */
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

  /** Answers whether a row of this organization was deleted. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.rows.delete({ organizationId, id });
    return (result.affected ?? 0) > 0;
  }
}
