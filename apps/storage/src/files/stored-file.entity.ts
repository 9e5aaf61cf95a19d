import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { StoragePolicy, StoredFileSource, StoredFileType } from '@gw/contracts';

@Entity({ name: 'files', schema: 'storage' })
@Index(['organizationId', 'createdAt'])
export class StoredFileEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('text', { name: 'object_key' })
  objectKey!: string;

  @Column('text', { name: 'file_type' })
  fileType!: StoredFileType;

  @Column('text', { name: 'mime_type' })
  mimeType!: string;

  @Column('text')
  source!: StoredFileSource;

  @Column('text', { name: 'storage_policy' })
  storagePolicy!: StoragePolicy;

  @Column('text')
  url!: string;

  @Column('bigint', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  size!: number;

  @Column('varchar', { name: 'external_user_id', length: 128, nullable: true })
  externalUserId!: string | null;

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
