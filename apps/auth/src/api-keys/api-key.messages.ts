import {
  AdminCreateApiKeyRequest,
  AdminSetApiKeyLimitsRequest,
  ConsoleCreateApiKeyRequest,
  ConsoleSetApiKeyLimitsRequest,
  UserPrincipal,
  UserPrincipalField,
} from '@gw/contracts';
import { AdminCreateApiKeyDto, CreateApiKeyDto, SetApiKeyLimitsDto } from '@gw/dto';
import { IsUUID } from 'class-validator';

/*
 * The messages that carry a body of the public API, validated with that body's HTTP DTO plus the
 * fields the gateway adds. Each must stay a refinement of its contract's class (HandlesRpc checks it).
 */

export class AdminCreateApiKeyMessage extends AdminCreateApiKeyDto implements AdminCreateApiKeyRequest {
  @IsUUID()
  organizationId!: string;
}

export class ConsoleCreateApiKeyMessage extends CreateApiKeyDto implements ConsoleCreateApiKeyRequest {
  @UserPrincipalField()
  principal!: UserPrincipal;
}

export class ConsoleSetApiKeyLimitsMessage
  extends SetApiKeyLimitsDto
  implements ConsoleSetApiKeyLimitsRequest
{
  @UserPrincipalField()
  principal!: UserPrincipal;

  @IsUUID()
  id!: string;
}

export class AdminSetApiKeyLimitsMessage extends SetApiKeyLimitsDto implements AdminSetApiKeyLimitsRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  id!: string;
}
