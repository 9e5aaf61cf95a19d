import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { OrganizationRole } from '@gw/contracts';

@Entity({ name: 'memberships', schema: 'auth' })
export class MembershipEntity {
  @PrimaryColumn('uuid', { name: 'organization_id' })
  organizationId!: string;

  @PrimaryColumn('uuid', { name: 'user_id' })
  userId!: string;

  @Column('text')
  role!: OrganizationRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
