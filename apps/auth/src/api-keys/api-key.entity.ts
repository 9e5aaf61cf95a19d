import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { SpendingLimit } from '@gw/contracts';

@Entity({ name: 'api_keys', schema: 'auth' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('uuid', { name: 'user_id', nullable: true })
  userId!: string | null;

  @Column('text')
  name!: string;

  /** SHA-256 hex of the key; the key itself is never stored. */
  @Column('char', { name: 'key_hash', length: 64 })
  keyHash!: string;

  @Column('text')
  short!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** app and scopes belong to OAuth-issued keys; ordinary keys leave them null. */
  @Column('text', { nullable: true })
  app!: string | null;

  @Column('text', { array: true, nullable: true })
  scopes!: string[] | null;

  /**
   * The OAuth application an issued key belongs to (callback origin and app_name, see
   * `oauthClientOf`); one active key per application, user and organization. Null on other keys.
   */
  @Column('text', { name: 'oauth_client', nullable: true })
  oauthClient!: string | null;

  /** A copy of what billing enforces (billing answers it when they are set), kept so the console list can show it. */
  @Column('jsonb', { name: 'spending_limits', default: () => "'[]'" })
  spendingLimits!: SpendingLimit[];

  /** Overrides of the gateway's default rate limits: null keeps the default, 0 lifts the limit. */
  @Column('integer', { name: 'rate_limit_rpm', nullable: true })
  rateLimitRpm!: number | null;

  @Column('integer', { name: 'rate_limit_concurrent', nullable: true })
  rateLimitConcurrent!: number | null;
}
