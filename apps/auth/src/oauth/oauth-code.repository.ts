import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { OAuthCodeEntity } from './oauth-code.entity';

export type NewOAuthCode = Omit<OAuthCodeEntity, 'createdAt' | 'usedAt' | 'issuedKeyHash' | 'replayedAt'>;

@Injectable()
export class OAuthCodeRepository {
  constructor(@InjectRepository(OAuthCodeEntity) private readonly rows: Repository<OAuthCodeEntity>) {}

  async insert(code: NewOAuthCode): Promise<void> {
    await this.rows.insert(code);
  }

  findByHash(codeHash: string): Promise<OAuthCodeEntity | null> {
    return this.rows.findOne({ where: { codeHash } });
  }

  /**
   * Marks the code used if nobody has and it has not expired, in one statement: of any number of
   * exchanges racing for one code, exactly one gets true, and only that one may check it further.
   */
  async consume(codeHash: string, at: Date): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ usedAt: at })
      .where('code_hash = :codeHash AND used_at IS NULL AND expires_at > :at', { codeHash, at })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Notes the key secret the code's exchange handed out. Returns whether the code was used again
   * meanwhile (the exchange must then revoke it itself: the replay found nothing to revoke).
   */
  async recordIssuedKey(codeHash: string, keyHash: string): Promise<{ replayed: boolean }> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ issuedKeyHash: keyHash })
      .where('code_hash = :codeHash', { codeHash })
      .returning(['replayedAt'])
      .execute();
    const rows = result.raw as { replayed_at: Date | null }[];
    return { replayed: rows.some((row) => row.replayed_at !== null) };
  }

  /**
   * Notes a use of an already used code. Returns the hash of the key secret its exchange handed
   * out, or null when it handed out none (a failed first use) or has not yet.
   */
  async markReplayed(codeHash: string, at: Date): Promise<string | null> {
    const result = await this.rows
      .createQueryBuilder()
      .update()
      .set({ replayedAt: () => 'COALESCE(replayed_at, :at)' })
      .where('code_hash = :codeHash AND used_at IS NOT NULL', { codeHash, at })
      .returning(['issuedKeyHash'])
      .execute();
    const rows = result.raw as { issued_key_hash: string | null }[];
    return rows[0]?.issued_key_hash ?? null;
  }

  /** Codes are worth nothing after they expire; kept a day to tell "expired" from "invalid" meanwhile. */
  async deleteExpiredBefore(before: Date): Promise<void> {
    await this.rows.delete({ expiresAt: LessThan(before) });
  }
}
