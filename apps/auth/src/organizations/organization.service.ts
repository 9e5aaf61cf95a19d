import { Injectable } from '@nestjs/common';
import {
  CreateOrganizationRequest,
  DomainError,
  Membership,
  Organization,
  SetMembershipRequest,
} from '@gw/contracts';
import { UserRepository } from '../users/user.repository';
import { OrganizationRepository } from './organization.repository';

@Injectable()
export class OrganizationService {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly users: UserRepository,
  ) {}

  async create(request: CreateOrganizationRequest): Promise<Organization> {
    const organization = await this.organizations.insert(request.name);
    return { id: organization.id, name: organization.name };
  }

  async setMembership(request: SetMembershipRequest): Promise<Membership> {
    await this.requireOrganization(request.organizationId);
    if (!(await this.users.findById(request.userId))) {
      throw new DomainError('not_found', `User ${request.userId} not found`, 'userId');
    }
    const membership = await this.organizations.upsertMembership(
      request.organizationId,
      request.userId,
      request.role,
    );
    return { organizationId: membership.organizationId, userId: membership.userId, role: membership.role };
  }

  async get(organizationId: string): Promise<Organization> {
    const organization = await this.organizations.findById(organizationId);
    if (!organization) throw organizationNotFound(organizationId);
    return { id: organization.id, name: organization.name };
  }

  async currentMembership(organizationId: string, userId: string): Promise<Membership> {
    const membership = await this.organizations.findMembership(organizationId, userId);
    if (!membership) throw new DomainError('forbidden', 'You are not a member of this organization');
    return { organizationId, userId, role: membership.role };
  }

  async requireOrganization(organizationId: string): Promise<void> {
    if (!(await this.organizations.exists(organizationId))) throw organizationNotFound(organizationId);
  }
}

function organizationNotFound(organizationId: string): DomainError {
  return new DomainError('not_found', `Organization ${organizationId} not found`, 'orgId');
}
