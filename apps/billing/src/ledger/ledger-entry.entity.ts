import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A refund gives back the charge of a generation the gateway could not deliver (decision 65). */
export type LedgerEntryKind = 'credit' | 'charge' | 'refund';

@Entity({ name: 'ledger_entries', schema: 'billing' })
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('text')
  kind!: LedgerEntryKind;

  @Column('numeric', { precision: 20, scale: 8 })
  amount!: string;

  @Column('numeric', { name: 'balance_after', precision: 20, scale: 8 })
  balanceAfter!: string;

  @Column('text', { name: 'generation_id', nullable: true })
  generationId!: string | null;

  @Column('text', { name: 'idempotency_key', nullable: true })
  idempotencyKey!: string | null;

  @Column('text', { nullable: true })
  reason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
