import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** One call of one provider for a generation; a fallback leaves several. */
export interface RequestAttemptRow {
  id: string;
  generationId: string;
  organizationId: string;
  attempt: number;
  provider: string;
  status: 'completed' | 'failed' | 'cancelled';
  errorCode: string | null;
  errorMessage: string | null;
  httpStatus: number | null;
  startedAt: Date;
  durationMs: number;
}

export type NewAttempt = Omit<RequestAttemptRow, 'id' | 'generationId' | 'organizationId'>;

/** A durable event written with the facts it reports, published after the commit and retried until JetStream stores it. */
export interface EventOutboxRow {
  messageId: string;
  organizationId: string;
  subject: string;
  payload: unknown;
  createdAt: Date;
  publishedAt: Date | null;
  publishAttempts: number;
}

export interface PaidGenerationTables {
  schema: string;
  RequestAttempt: new () => RequestAttemptRow;
  EventOutbox: new () => EventOutboxRow;
}

/**
 * The attempt and outbox entities in one service's own schema: every service that makes paid
 * generations keeps these tables in its schema and creates them with its own migration. Call it
 * once per service and list both classes among that service's entities.
 */
export function paidGenerationTables(schema: string): PaidGenerationTables {
  @Entity({ name: 'request_attempts', schema })
  class RequestAttemptEntity implements RequestAttemptRow {
    @PrimaryGeneratedColumn('uuid')
    id!: string;

    @Column('text', { name: 'generation_id' })
    generationId!: string;

    @Column('uuid', { name: 'organization_id' })
    organizationId!: string;

    @Column('integer')
    attempt!: number;

    @Column('text')
    provider!: string;

    @Column('text')
    status!: 'completed' | 'failed' | 'cancelled';

    @Column('text', { name: 'error_code', nullable: true })
    errorCode!: string | null;

    @Column('text', { name: 'error_message', nullable: true })
    errorMessage!: string | null;

    @Column('integer', { name: 'http_status', nullable: true })
    httpStatus!: number | null;

    @Column('timestamptz', { name: 'started_at' })
    startedAt!: Date;

    @Column('integer', { name: 'duration_ms' })
    durationMs!: number;
  }

  @Entity({ name: 'event_outbox', schema })
  class EventOutboxEntity implements EventOutboxRow {
    @PrimaryColumn('text', { name: 'message_id' })
    messageId!: string;

    @Column('uuid', { name: 'organization_id' })
    organizationId!: string;

    @Column('text')
    subject!: string;

    @Column('jsonb')
    payload!: unknown;

    @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
    createdAt!: Date;

    @Column('timestamptz', { name: 'published_at', nullable: true })
    publishedAt!: Date | null;

    @Column('integer', { name: 'publish_attempts', default: 0 })
    publishAttempts!: number;
  }

  return { schema, RequestAttempt: RequestAttemptEntity, EventOutbox: EventOutboxEntity };
}
