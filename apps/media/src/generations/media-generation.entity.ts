import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MediaGenerationStatus } from '@gw/contracts';

@Entity({ name: 'generations', schema: 'media' })
@Index(['organizationId', 'createdAt'])
export class MediaGenerationEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('uuid', { name: 'api_key_id', nullable: true })
  apiKeyId!: string | null;

  @Column('text')
  model!: string;

  @Column('text')
  status!: MediaGenerationStatus;

  @Column('jsonb', { default: {} })
  params!: Record<string, unknown>;

  @Column('jsonb', { nullable: true })
  result!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;
}
