import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { SpendingLimit } from '@gw/contracts';
import { ApiKeyEntity } from './api-key.entity';

export interface NewApiKey {
  userId: string | null;
  name: string;
  keyHash: string;
  short: string;
}

@Injectable()
export class ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly rows: Repository<ApiKeyEntity>) {}

  insert(organizationId: string, key: NewApiKey): Promise<ApiKeyEntity> {
    return this.rows.save(this.rows.create({ organizationId, ...key }));
  }

  /** Active keys of one organization, newest first. */
  listActive(organizationId: string): Promise<ApiKeyEntity[]> {
    return this.rows.find({
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** The organization is part of the lookup: another tenant's key id reads as unknown. */
  findActive(organizationId: string, id: string): Promise<ApiKeyEntity | null> {
    return this.rows.findOne({ where: { organizationId, id, revokedAt: IsNull() } });
  }

  /** Returns false when the key is revoked or not this organization's. */
  async setLimits(organizationId: string, id: string, limits: SpendingLimit[]): Promise<boolean> {
    const result = await this.rows.update(
      { organizationId, id, revokedAt: IsNull() },
      { spendingLimits: limits },
    );
    return (result.affected ?? 0) > 0;
  }

  /** Only for a key that was never handed out (its limits could not be set). */
  async delete(organizationId: string, id: string): Promise<void> {
    await this.rows.delete({ organizationId, id });
  }

  /** Returns false when the key was already revoked (or is not this organization's). */
  async revoke(organizationId: string, id: string, at: Date): Promise<boolean> {
    const result = await this.rows.update({ organizationId, id, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The one lookup without an organization: the hash is how a caller's organization is found in
   * the first place. Revoked keys are not returned.
   */
  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.rows.findOne({ where: { keyHash, revokedAt: IsNull() } });
  }

  /** Conditional, so replicas that resolve the same key at once write it only once per interval. */
  async touch(organizationId: string, id: string, at: Date, notSince: Date): Promise<void> {
    await this.rows
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: at })
      .where('organization_id = :organizationId AND id = :id', { organizationId, id })
      .andWhere('(last_used_at IS NULL OR last_used_at < :notSince)', { notSince })
      .execute();
  }
}
