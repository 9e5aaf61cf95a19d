import type { SetMembershipRequest } from '@gw/contracts';
import { SetMembershipDto } from '@gw/dto';
import { IsUUID } from 'class-validator';

/** The HTTP body plus the path parameters: a refinement of the contract's class (HandlesRpc checks it). */
export class SetMembershipMessage extends SetMembershipDto implements SetMembershipRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;
}
