import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { StoragePolicy, StoredFileSource, StoredFileType } from '@gw/contracts';

export type StoredFileStatus = 'pending' | 'stored' | 'deleting';

@Entity({ name: 'files', schema: 'storage' })
@Index(['organizationId', 'createdAt'])
export class StoredFileEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('text', { name: 'object_key' })
  objectKey!: string;

  /** Null only while the upload is pending. */
  @Column('text', { name: 'file_type', nullable: true })
  fileType!: StoredFileType | null;

  @Column('text', { name: 'mime_type', nullable: true })
  mimeType!: string | null;

  @Column('text')
  source!: StoredFileSource;

  @Column('text', { name: 'storage_policy', nullable: true })
  storagePolicy!: StoragePolicy | null;

  /** `pending`: intent recorded, object maybe written; `stored`: listed; `deleting`: object being removed. */
  @Column('text')
  status!: StoredFileStatus;

  /** Until when a deletion in progress belongs to whoever started it; the sweeper takes it after that. */
  @Column('timestamptz', { name: 'claimed_until', nullable: true })
  claimedUntil!: Date | null;

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
