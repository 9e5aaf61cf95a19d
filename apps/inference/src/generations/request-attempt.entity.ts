import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One call of one provider for a generation; a fallback leaves several. */
@Entity({ name: 'request_attempts', schema: 'inference' })
export class RequestAttemptEntity {
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
