import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A durable event written with the facts it reports, published after the commit and retried until JetStream stores it. */
@Entity({ name: 'event_outbox', schema: 'inference' })
export class EventOutboxEntity {
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
