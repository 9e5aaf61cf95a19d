import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'organizations', schema: 'auth' })
export class OrganizationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Overrides of the gateway's default rate limits: null keeps the default, 0 lifts the limit. */
  @Column('integer', { name: 'rate_limit_rpm', nullable: true })
  rateLimitRpm!: number | null;

  @Column('integer', { name: 'rate_limit_concurrent', nullable: true })
  rateLimitConcurrent!: number | null;
}
