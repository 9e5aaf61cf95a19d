import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { OAuthCodeEntity } from './oauth-code.entity';

export type NewOAuthCode = Omit<OAuthCodeEntity, 'createdAt' | 'usedAt'>;

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
   * exchanges racing for one code, exactly one gets true.
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

  /** Codes are worth nothing after they expire; kept a day to tell "expired" from "invalid" meanwhile. */
  async deleteExpiredBefore(before: Date): Promise<void> {
    await this.rows.delete({ expiresAt: LessThan(before) });
  }
}
