import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GenerationRequestType, GenerationResponseMode } from '@gw/contracts';

export type ReservationStatus = 'held' | 'settled' | 'released';

export interface ReservationContext {
  model?: string;
  requestType?: GenerationRequestType;
  apiType?: string;
  responseMode?: GenerationResponseMode;
  apiKeyName?: string;
  apiKeyShort?: string;
  userId?: string;
}

@Entity({ name: 'reservations', schema: 'billing' })
export class ReservationEntity {
  @PrimaryColumn('text', { name: 'generation_id' })
  generationId!: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId!: string;

  @Column('uuid', { name: 'api_key_id', nullable: true })
  apiKeyId!: string | null;

  @Column('numeric', { precision: 20, scale: 8 })
  amount!: string;

  @Column('text')
  status!: ReservationStatus;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  /** What the history entry of an expired reservation needs (model, request type, key label). */
  @Column('jsonb', { nullable: true })
  context!: ReservationContext | null;
}
