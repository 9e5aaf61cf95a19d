import type { CurrentMembershipRequest, GetOrganizationRequest, SetMembershipRequest } from '@gw/contracts';
import { SetMembershipDto } from '@gw/dto';
import { IsUUID } from 'class-validator';

/** The HTTP body plus the path parameters, validated again at the service boundary. */
export class SetMembershipMessage extends SetMembershipDto implements SetMembershipRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;
}

export class GetOrganizationMessage implements GetOrganizationRequest {
  @IsUUID()
  organizationId!: string;
}

export class CurrentMembershipMessage implements CurrentMembershipRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;
}
