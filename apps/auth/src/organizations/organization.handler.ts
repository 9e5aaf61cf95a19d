import { Controller } from '@nestjs/common';
import {
  AuthContracts,
  CurrentMembershipRequest,
  GetOrganizationRequest,
  Membership,
  Organization,
} from '@gw/contracts';
import { CreateOrganizationDto } from '@gw/dto';
import { HandlesRpc } from '@gw/platform';
import { SetMembershipMessage } from './organization.messages';
import { OrganizationService } from './organization.service';

@Controller()
export class OrganizationHandler {
  constructor(private readonly organizations: OrganizationService) {}

  @HandlesRpc(AuthContracts.adminCreateOrganization, CreateOrganizationDto)
  create(request: CreateOrganizationDto): Promise<Organization> {
    return this.organizations.create(request);
  }

  @HandlesRpc(AuthContracts.adminGetOrganization)
  get(request: GetOrganizationRequest): Promise<Organization> {
    return this.organizations.get(request.organizationId);
  }

  @HandlesRpc(AuthContracts.currentMembership)
  currentMembership(request: CurrentMembershipRequest): Promise<Membership> {
    return this.organizations.currentMembership(request.organizationId, request.userId);
  }

  @HandlesRpc(AuthContracts.adminSetMembership, SetMembershipMessage)
  setMembership(request: SetMembershipMessage): Promise<Membership> {
    return this.organizations.setMembership(request);
  }
}
