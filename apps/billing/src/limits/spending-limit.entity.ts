import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SpendingLimitPeriod } from '@gw/contracts';

@Entity({ name: 'spending_limits', schema: 'billing' })
export class SpendingLimitEntity {
  @PrimaryColumn('uuid', { name: 'organization_id' })
  organizationId!: string;

  @PrimaryColumn('uuid', { name: 'api_key_id' })
  apiKeyId!: string;

  @PrimaryColumn('text')
  period!: SpendingLimitPeriod;

  @Column('numeric', { precision: 20, scale: 8 })
  amount!: string;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}

@Entity({ name: 'spending_counters', schema: 'billing' })
export class SpendingCounterEntity {
  @PrimaryColumn('uuid', { name: 'organization_id' })
  organizationId!: string;

  @PrimaryColumn('uuid', { name: 'api_key_id' })
  apiKeyId!: string;

  @PrimaryColumn('text')
  period!: SpendingLimitPeriod;

  @PrimaryColumn('timestamptz', { name: 'window_start' })
  windowStart!: Date;

  @Column('numeric', { precision: 20, scale: 8 })
  held!: string;

  @Column('numeric', { precision: 20, scale: 8 })
  spent!: string;
}
