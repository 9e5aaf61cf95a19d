import {
  AdminCreateApiKeyRequest,
  AdminSetApiKeyLimitsRequest,
  ConsoleSetApiKeyLimitsRequest,
  ConsoleCreateApiKeyRequest,
  ConsoleListApiKeysRequest,
  ConsoleRevokeApiKeyRequest,
  ORGANIZATION_ROLES,
  OrganizationRole,
  ResolveApiKeyRequest,
  UserPrincipal,
} from '@gw/contracts';
import { AdminCreateApiKeyDto, CreateApiKeyDto, SetApiKeyLimitsDto } from '@gw/dto';
import { Type } from 'class-transformer';
import { Equals, IsIn, IsObject, IsUUID, Matches, ValidateNested } from 'class-validator';

/** The console caller as the gateway verified it from the JWT; its shape is still checked here. */
export class UserPrincipalMessage implements UserPrincipal {
  @Equals('user')
  kind!: 'user';

  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;

  @IsIn([...ORGANIZATION_ROLES])
  role!: OrganizationRole;
}

export class ResolveApiKeyMessage implements ResolveApiKeyRequest {
  @Matches(/^[0-9a-f]{64}$/, { message: 'keyHash must be a SHA-256 hex digest' })
  keyHash!: string;
}

export class AdminCreateApiKeyMessage extends AdminCreateApiKeyDto implements AdminCreateApiKeyRequest {
  @IsUUID()
  organizationId!: string;
}

export class ConsoleListApiKeysMessage implements ConsoleListApiKeysRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => UserPrincipalMessage)
  principal!: UserPrincipalMessage;
}

export class ConsoleCreateApiKeyMessage extends CreateApiKeyDto implements ConsoleCreateApiKeyRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => UserPrincipalMessage)
  principal!: UserPrincipalMessage;
}

export class ConsoleRevokeApiKeyMessage
  extends ConsoleListApiKeysMessage
  implements ConsoleRevokeApiKeyRequest
{
  @IsUUID()
  id!: string;
}

export class ConsoleSetApiKeyLimitsMessage
  extends SetApiKeyLimitsDto
  implements ConsoleSetApiKeyLimitsRequest
{
  @IsObject()
  @ValidateNested()
  @Type(() => UserPrincipalMessage)
  principal!: UserPrincipalMessage;

  @IsUUID()
  id!: string;
}

export class AdminSetApiKeyLimitsMessage extends SetApiKeyLimitsDto implements AdminSetApiKeyLimitsRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  id!: string;
}
