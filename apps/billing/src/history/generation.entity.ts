import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type {
  GenerationFinalStatus,
  GenerationRequestType,
  GenerationResponseMode,
  HistoryListStatus,
  TokenUsage,
} from '@gw/contracts';

/** One finished generation as billing recorded it: the history of the interface. The model's display name lives in ModelNameEntity. */
@Entity({ name: 'generations', schema: 'billing' })
@Index(['organizationId', 'createdAt', 'id'])
@Index(['organizationId', 'apiKeyId', 'createdAt', 'id'])
@Index(['organizationId', 'clientCost', 'createdAt', 'id'])
@Index(['organizationId', 'apiKeyId', 'clientCost', 'createdAt', 'id'])
@Index(['organizationId', 'listStatus', 'createdAt', 'id'])
@Index(['organizationId', 'requestType', 'createdAt', 'id'])
@Index(['organizationId', 'listStatus', 'clientCost', 'createdAt', 'id'])
@Index(['organizationId', 'requestType', 'clientCost', 'createdAt', 'id'])
export class GenerationEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('uuid', { name: 'api_key_id', nullable: true })
  apiKeyId!: string | null;

  @Column('text', { name: 'api_key_name', nullable: true })
  apiKeyName!: string | null;

  @Column('text', { name: 'api_key_short', nullable: true })
  apiKeyShort!: string | null;

  @Column('uuid', { name: 'user_id', nullable: true })
  userId!: string | null;

  @Column('text')
  model!: string;

  @Column('text', { name: 'request_type' })
  requestType!: GenerationRequestType;

  @Column('text', { name: 'api_type' })
  apiType!: string;

  @Column('text', { name: 'response_mode' })
  responseMode!: GenerationResponseMode;

  @Column('text')
  status!: GenerationFinalStatus;

  /** What history lists and filters show (they know no `cancelled`). */
  @Column('text', { name: 'list_status' })
  listStatus!: HistoryListStatus;

  @Column('text', { name: 'finish_reason', nullable: true })
  finishReason!: string | null;

  @Column('text', { nullable: true })
  provider!: string | null;

  @Column('jsonb', { nullable: true })
  usage!: TokenUsage | null;

  /** The cost the producer reported. */
  @Column('numeric', { precision: 20, scale: 8 })
  cost!: string;

  /** What the organization was actually charged (the reservation caps it). */
  @Column('numeric', { name: 'client_cost', precision: 20, scale: 8 })
  clientCost!: string;

  @Column('integer', { name: 'generation_time_ms', nullable: true })
  generationTimeMs!: number | null;

  @Column('integer', { name: 'latency_ms', nullable: true })
  latencyMs!: number | null;

  @Column('integer', { name: 'queue_time_ms', nullable: true })
  queueTimeMs!: number | null;

  @Column('integer', { name: 'attempts_count' })
  attemptsCount!: number;

  @Column('boolean', { name: 'is_cancelled' })
  isCancelled!: boolean;

  @Column('jsonb', { nullable: true })
  error!: { code: string; message: string } | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt!: Date | null;

  @Column('timestamptz', { name: 'recorded_at', default: () => 'now()' })
  recordedAt!: Date;
}

/** The display name of each model slug seen in a generation-finished event (the latest one wins). */
@Entity({ name: 'models', schema: 'billing' })
export class ModelNameEntity {
  @PrimaryColumn('text')
  model!: string;

  @Column('text', { name: 'display_name' })
  displayName!: string;
}
