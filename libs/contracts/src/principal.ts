import { Type } from 'class-transformer';
import { Equals, IsIn, IsObject, IsString, IsUUID, ValidateIf, ValidateNested } from 'class-validator';

/** Who is calling, as resolved by the gateway from the bearer credential and sent along with every message. */
export type OrganizationRole = 'admin' | 'member';

export const ORGANIZATION_ROLES: readonly OrganizationRole[] = ['admin', 'member'];

export const PRINCIPAL_KINDS = ['api_key', 'user'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/**
 * What both kinds share. A message whose `kind` names neither stays an instance of this class, so
 * the `kind` rule refuses it rather than letting an unknown caller through.
 */
export class PrincipalMessage {
  @IsIn(PRINCIPAL_KINDS)
  kind!: PrincipalKind;

  @IsUUID()
  organizationId!: string;
}

export class ApiKeyPrincipal extends PrincipalMessage {
  @Equals('api_key')
  override kind!: 'api_key';

  @IsUUID()
  apiKeyId!: string;

  @IsString()
  apiKeyName!: string;

  @IsString()
  apiKeyShort!: string;

  @ValidateIf((_principal, value) => value !== null)
  @IsUUID()
  userId!: string | null;
}

export class UserPrincipal extends PrincipalMessage {
  @Equals('user')
  override kind!: 'user';

  @IsUUID()
  userId!: string;

  @IsIn(ORGANIZATION_ROLES)
  role!: OrganizationRole;
}

export type Principal = ApiKeyPrincipal | UserPrincipal;

/** A message field carrying either kind of principal, told apart by `kind`. */
export function PrincipalField(): PropertyDecorator {
  const type = Type(() => PrincipalMessage, {
    keepDiscriminatorProperty: true,
    discriminator: {
      property: 'kind',
      subTypes: [
        { name: 'api_key', value: ApiKeyPrincipal },
        { name: 'user', value: UserPrincipal },
      ],
    },
  });
  return (target, key) => {
    IsObject()(target, key);
    ValidateNested()(target, key);
    type(target, key);
  };
}

/** A message field that only a console (JWT) caller may send. */
export function UserPrincipalField(): PropertyDecorator {
  return (target, key) => {
    IsObject()(target, key);
    ValidateNested()(target, key);
    Type(() => UserPrincipal)(target, key);
  };
}
