import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type {
  GeneratedMediaFile,
  GenerationRequestType,
  GenerationResponseMode,
  MediaGenerationStatus,
  MediaOperation,
  MediaSurface,
  MediaUsage,
  Principal,
} from '@gw/contracts';

/** One result file as the record keeps it: where the bytes are and what the client is shown. */
export interface StoredResultFile extends GeneratedMediaFile {
  expiresAt: string | null;
  revisedPrompt?: string;
}

/**
 * A media generation and its durable job (one row: the job is the generation's unfinished part).
 * `next_run_at` is set while the job has work left; a runner claims it by `lease_owner` and
 * `lease_until` and leaves it with a new `next_run_at` or a final status.
 */
@Entity({ name: 'generations', schema: 'media' })
@Index(['organizationId', 'createdAt'])
export class MediaGenerationEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('uuid', { name: 'api_key_id', nullable: true })
  apiKeyId!: string | null;

  /** The caller as the gateway resolved it: the hold's history context when a job is resumed elsewhere. */
  @Column('jsonb')
  principal!: Principal;

  @Column('text')
  model!: string;

  @Column('text', { name: 'model_display_name' })
  modelDisplayName!: string;

  @Column('text', { name: 'request_type' })
  requestType!: GenerationRequestType;

  @Column('text')
  surface!: MediaSurface;

  @Column('text', { name: 'response_mode' })
  responseMode!: GenerationResponseMode;

  @Column('text', { name: 'parent_id', nullable: true })
  parentId!: string | null;

  @Column('text', { nullable: true })
  operation!: MediaOperation | null;

  @Column('text', { name: 'external_user_id', nullable: true })
  externalUserId!: string | null;

  @Column('text')
  status!: MediaGenerationStatus;

  /** The validated parameters, the model's defaults applied. */
  @Column('jsonb', { default: {} })
  params!: Record<string, unknown>;

  @Column('jsonb', { default: [] })
  warnings!: string[];

  /** What the generation costs when it completes (decimal string). */
  @Column('numeric', { precision: 20, scale: 8 })
  price!: string;

  /** What billing holds for it. */
  @Column('numeric', { precision: 20, scale: 8 })
  reserved!: string;

  /** What it was charged, once final. */
  @Column('numeric', { precision: 20, scale: 8, nullable: true })
  cost!: string | null;

  @Column('jsonb', { nullable: true })
  usage!: MediaUsage | null;

  @Column('jsonb', { default: [] })
  files!: StoredResultFile[];

  @Column('jsonb', { nullable: true })
  error!: { code: string; message: string } | null;

  @Column('text', { nullable: true })
  provider!: string | null;

  @Column('text', { name: 'provider_job_id', nullable: true })
  providerJobId!: string | null;

  /** Set just before the provider's create call: from then on the call is never repeated. */
  @Column('timestamptz', { name: 'submitted_at', nullable: true })
  submittedAt!: Date | null;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt!: Date | null;

  /** Status polls of the provider's job so far (the backoff's step). */
  @Column('integer')
  polls!: number;

  /** Safe steps retried after a failure so far. */
  @Column('integer')
  retries!: number;

  @Column('text', { name: 'lease_owner', nullable: true })
  leaseOwner!: string | null;

  @Column('timestamptz', { name: 'lease_until', nullable: true })
  leaseUntil!: Date | null;

  @Column('timestamptz', { name: 'next_run_at', nullable: true })
  nextRunAt!: Date | null;

  @Column('timestamptz', { name: 'deadline_at' })
  deadlineAt!: Date;

  /** When billing was told the outcome (the hold finished); null until then. */
  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;
}
