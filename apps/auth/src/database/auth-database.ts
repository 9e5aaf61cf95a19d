import { type ServiceDatabaseOptions } from '@gw/platform/database';
import { ApiKeyEntity } from '../api-keys/api-key.entity';
import { MembershipEntity } from '../organizations/membership.entity';
import { OrganizationEntity } from '../organizations/organization.entity';
import { OAuthCodeEntity } from '../oauth/oauth-code.entity';
import { UserEntity } from '../users/user.entity';
import { CreateAuthTables1763900000000 } from './migrations/1763900000000-create-auth-tables';
import { ApiKeySpendingLimits1764100000000 } from './migrations/1764100000000-api-key-spending-limits';
import { RateLimitOverrides1764300000000 } from './migrations/1764300000000-rate-limit-overrides';
import { OAuthCodes1764500000000 } from './migrations/1764500000000-oauth-codes';
import { OAuthCodeReplays1764800000000 } from './migrations/1764800000000-oauth-code-replays';

export const AUTH_SCHEMA = 'auth';

export const AUTH_ENTITIES = [
  UserEntity,
  OrganizationEntity,
  MembershipEntity,
  ApiKeyEntity,
  OAuthCodeEntity,
];

/** Migrations are listed, not globbed: globs do not survive bundling. Append only. */
export function authDatabase(url: string): ServiceDatabaseOptions {
  return {
    url,
    schema: AUTH_SCHEMA,
    entities: AUTH_ENTITIES,
    migrations: [
      CreateAuthTables1763900000000,
      ApiKeySpendingLimits1764100000000,
      RateLimitOverrides1764300000000,
      OAuthCodes1764500000000,
      OAuthCodeReplays1764800000000,
    ],
  };
}
