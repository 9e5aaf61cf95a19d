import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OAuthScope, SpendingLimit } from '@gw/contracts';

@Entity({ name: 'oauth_codes', schema: 'auth' })
export class OAuthCodeEntity {
  /** SHA-256 hex of the code; the code itself is only ever in the redirect. */
  @PrimaryColumn('char', { name: 'code_hash', length: 64 })
  codeHash!: string;

  @Column('uuid', { name: 'user_id' })
  userId!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('text', { name: 'callback_url' })
  callbackUrl!: string;

  @Column('text', { name: 'code_challenge' })
  codeChallenge!: string;

  @Column('text', { name: 'app_name', nullable: true })
  appName!: string | null;

  @Column('text', { array: true })
  scopes!: OAuthScope[];

  @Column('jsonb', { name: 'spending_limits', default: () => "'[]'" })
  spendingLimits!: SpendingLimit[];

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  /** Its first use, whatever came of it: a code is burnt then (RFC 6749 §4.1.2). */
  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt!: Date | null;

  /** SHA-256 hex of the key secret its exchange handed out, revoked if the code is used again. */
  @Column('char', { name: 'issued_key_hash', length: 64, nullable: true })
  issuedKeyHash!: string | null;

  /** When the code was first used again after its first use. */
  @Column('timestamptz', { name: 'replayed_at', nullable: true })
  replayedAt!: Date | null;
}
