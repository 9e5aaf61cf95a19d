import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'accounts', schema: 'billing' })
export class AccountEntity {
  @PrimaryColumn('uuid', { name: 'organization_id' })
  organizationId!: string;

  /** numeric arrives from pg as a string and stays one until decimal.js reads it. */
  @Column('numeric', { precision: 20, scale: 8, default: 0 })
  balance!: string;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
