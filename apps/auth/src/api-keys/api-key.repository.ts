import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { SpendingLimit } from '@gw/contracts';
import { isUniqueViolation } from '../users/user.repository';
import { ApiKeyEntity } from './api-key.entity';

export interface NewApiKey {
  userId: string | null;
  name: string;
  keyHash: string;
  short: string;
}

/** What an OAuth grant sets on the key of its application, at issue and at every rotation. */
export interface OAuthKeyGrant {
  name: string;
  app: string;
  scopes: string[];
}

export interface NewOAuthKey extends NewApiKey, OAuthKeyGrant {
  userId: string;
  oauthClient: string;
}

@Injectable()
export class ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly rows: Repository<ApiKeyEntity>) {}

  insert(organizationId: string, key: NewApiKey): Promise<ApiKeyEntity> {
    return this.rows.save(this.rows.create({ organizationId, ...key }));
  }

  /** Null when the application already has an active key (another exchange created it meanwhile). */
  async insertOAuthKey(organizationId: string, key: NewOAuthKey): Promise<ApiKeyEntity | null> {
    try {
      return await this.rows.save(this.rows.create({ organizationId, ...key }));
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  findActiveOAuthKey(
    organizationId: string,
    userId: string,
    oauthClient: string,
  ): Promise<ApiKeyEntity | null> {
    return this.rows.findOne({ where: { organizationId, userId, oauthClient, revokedAt: IsNull() } });
  }

  /**
   * A new secret for the same key id, with the grant's scopes and name. Conditional on the secret
   * being the one the caller read, so two rotations racing cannot both believe theirs is in force.
   * Returns false when the key was revoked or rotated meanwhile.
   */
  async rotate(
    organizationId: string,
    id: string,
    previousKeyHash: string,
    secret: Pick<NewApiKey, 'keyHash' | 'short'>,
    grant: OAuthKeyGrant,
  ): Promise<boolean> {
    const result = await this.rows.update(
      { organizationId, id, keyHash: previousKeyHash, revokedAt: IsNull() },
      { ...secret, ...grant },
    );
    return (result.affected ?? 0) > 0;
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
   * Revokes the key whose secret is `keyHash`, if that secret is still in force (not revoked, not
   * rotated since). Returns the key's id, or null when there was nothing to revoke.
   */
  async revokeSecret(organizationId: string, keyHash: string, at: Date): Promise<string | null> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at })
      .where('organization_id = :organizationId AND key_hash = :keyHash AND revoked_at IS NULL', {
        organizationId,
        keyHash,
      })
      .returning(['id'])
      .execute();
    const rows = result.raw as { id: string }[];
    return rows[0]?.id ?? null;
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
