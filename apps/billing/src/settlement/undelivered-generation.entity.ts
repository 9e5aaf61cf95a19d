import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The gateway's report that it could not deliver a generation's answer: the generation is not charged. */
@Entity({ name: 'undelivered_generations', schema: 'billing' })
export class UndeliveredGenerationEntity {
  @PrimaryColumn('text', { name: 'generation_id' })
  generationId!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('text')
  reason!: string;

  @Column('timestamptz', { name: 'reported_at', default: () => 'now()' })
  reportedAt!: Date;
}
