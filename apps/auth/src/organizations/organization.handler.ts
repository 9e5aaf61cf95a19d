import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AuthContracts, Membership, Organization } from '@gw/contracts';
import { CreateOrganizationDto } from '@gw/dto';
import {
  CurrentMembershipMessage,
  GetOrganizationMessage,
  SetMembershipMessage,
} from './organization.messages';
import { OrganizationService } from './organization.service';

@Controller()
export class OrganizationHandler {
  constructor(private readonly organizations: OrganizationService) {}

  @MessagePattern(AuthContracts.adminCreateOrganization.subject)
  create(@Payload() request: CreateOrganizationDto): Promise<Organization> {
    return this.organizations.create(request);
  }

  @MessagePattern(AuthContracts.adminGetOrganization.subject)
  get(@Payload() request: GetOrganizationMessage): Promise<Organization> {
    return this.organizations.get(request.organizationId);
  }

  @MessagePattern(AuthContracts.currentMembership.subject)
  currentMembership(@Payload() request: CurrentMembershipMessage): Promise<Membership> {
    return this.organizations.currentMembership(request.organizationId, request.userId);
  }

  @MessagePattern(AuthContracts.adminSetMembership.subject)
  setMembership(@Payload() request: SetMembershipMessage): Promise<Membership> {
    return this.organizations.setMembership(request);
  }
}
