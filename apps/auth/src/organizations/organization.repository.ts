import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { OrganizationRole } from '@gw/contracts';
import { MembershipEntity } from './membership.entity';
import { OrganizationEntity } from './organization.entity';

@Injectable()
export class OrganizationRepository {
  constructor(
    @InjectRepository(OrganizationEntity) private readonly organizations: Repository<OrganizationEntity>,
    @InjectRepository(MembershipEntity) private readonly memberships: Repository<MembershipEntity>,
  ) {}

  insert(name: string): Promise<OrganizationEntity> {
    return this.organizations.save(this.organizations.create({ name }));
  }

  findById(organizationId: string): Promise<OrganizationEntity | null> {
    return this.organizations.findOne({ where: { id: organizationId } });
  }

  exists(organizationId: string): Promise<boolean> {
    return this.organizations.exists({ where: { id: organizationId } });
  }

  /** Creates the membership or changes its role. */
  async upsertMembership(
    organizationId: string,
    userId: string,
    role: OrganizationRole,
  ): Promise<MembershipEntity> {
    await this.memberships.upsert(
      { organizationId, userId, role },
      { conflictPaths: ['organizationId', 'userId'] },
    );
    return this.memberships.findOneOrFail({ where: { organizationId, userId } });
  }

  findMembership(organizationId: string, userId: string): Promise<MembershipEntity | null> {
    return this.memberships.findOne({ where: { organizationId, userId } });
  }

  /** Every organization of a user with the user's role there, in the order they were joined. */
  organizationsOf(userId: string): Promise<{ id: string; name: string; role: OrganizationRole }[]> {
    return this.memberships
      .createQueryBuilder('m')
      .innerJoin(OrganizationEntity, 'o', 'o.id = m.organization_id')
      .select(['o.id AS id', 'o.name AS name', 'm.role AS role'])
      .where('m.user_id = :userId', { userId })
      .orderBy('m.created_at', 'ASC')
      .addOrderBy('o.id', 'ASC')
      .getRawMany();
  }

  /** The organization a user joined first: the default of a login without an organizationId. */
  firstMembershipOf(userId: string): Promise<MembershipEntity | null> {
    return this.memberships.findOne({
      where: { userId },
      order: { createdAt: 'ASC', organizationId: 'ASC' },
    });
  }
}
