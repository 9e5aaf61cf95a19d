import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  ValidateNested,
} from 'class-validator';
import { type KeyLimits, SpendingLimit } from '../billing/billing.contracts';
import { broadcast, rpc } from '../contract';
import {
  type ApiKeyPrincipal,
  ORGANIZATION_ROLES,
  type OrganizationRole,
  UserPrincipal,
  UserPrincipalField,
} from '../principal';

/** A list of spending limits, each checked by billing's rules. */
function SpendingLimits(): PropertyDecorator {
  return (target, key) => {
    IsArray()(target, key);
    IsObject({ each: true })(target, key);
    ValidateNested({ each: true })(target, key);
    Type(() => SpendingLimit)(target, key);
  };
}

/** The gateway never forwards a raw API key: it sends the SHA-256 hex digest, which is what auth stores. */
export class ResolveApiKeyRequest {
  @Matches(/^[0-9a-f]{64}$/, { message: 'keyHash must be a SHA-256 hex digest' })
  keyHash!: string;
}

/** Overrides of the gateway's default rate limits: null keeps the default, 0 lifts the limit. */
export interface RateLimitOverrides {
  requestsPerMinute: number | null;
  concurrent: number | null;
}

export interface ApiKeyRateLimits {
  key: RateLimitOverrides;
  organization: RateLimitOverrides;
}

/**
 * What auth answers for a key: its principal, and `rateLimits` only when the key or its
 * organization overrides a default. The gateway keeps the limits to itself; only the principal
 * travels on with the request.
 */
export type ResolvedApiKey = ApiKeyPrincipal & { rateLimits?: ApiKeyRateLimits };

export class ApiKeyRevokedEvent {
  @IsUUID()
  apiKeyId!: string;

  @Matches(/^[0-9a-f]{64}$/, { message: 'keyHash must be a SHA-256 hex digest' })
  keyHash!: string;
}

/**
 * The messages below carry a body of the public API: auth validates them with the body's HTTP DTO
 * (libs/dto), which refines these classes; here each field is only checked for its type.
 */
export class CreateUserRequest {
  @IsString()
  email!: string;

  @IsString()
  password!: string;

  @IsString()
  name!: string;
}

export interface AuthUser {
  id: string;
  email: string;
  name: string;
}

export class CreateOrganizationRequest {
  @IsString()
  name!: string;
}

export interface Organization {
  id: string;
  name: string;
}

export class GetOrganizationRequest {
  @IsUUID()
  organizationId!: string;
}

export class CurrentMembershipRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;
}

export class SetMembershipRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  userId!: string;

  @IsIn(ORGANIZATION_ROLES)
  role!: OrganizationRole;
}

export interface Membership {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
}

export class AdminCreateApiKeyRequest {
  @IsUUID()
  organizationId!: string;

  @IsString()
  name!: string;

  /** A member of the organization the key acts for. */
  @IsOptional()
  @IsUUID()
  userId?: string;

  @IsOptional()
  @SpendingLimits()
  limits?: SpendingLimit[];
}

/** The only message that ever carries the key itself. */
export interface CreatedApiKey {
  id: string;
  key: string;
  name: string;
  short: string;
}

export class LoginRequest {
  @IsString()
  email!: string;

  @IsString()
  password!: string;

  @IsOptional()
  @IsUUID()
  organizationId?: string;
}

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Console calls carry the user the gateway verified from the JWT. */
export class ConsoleListApiKeysRequest {
  @UserPrincipalField()
  principal!: UserPrincipal;
}

export class ConsoleCreateApiKeyRequest {
  @UserPrincipalField()
  principal!: UserPrincipal;

  @IsString()
  name!: string;

  @IsOptional()
  @SpendingLimits()
  limits?: SpendingLimit[];
}

/** Console route: the caller must be an admin of the key's organization. */
export class ConsoleSetApiKeyLimitsRequest {
  @UserPrincipalField()
  principal!: UserPrincipal;

  @IsUUID()
  id!: string;

  @SpendingLimits()
  limits!: SpendingLimit[];
}

export class AdminSetApiKeyLimitsRequest {
  @IsUUID()
  organizationId!: string;

  @IsUUID()
  id!: string;

  @SpendingLimits()
  limits!: SpendingLimit[];
}

export class ConsoleRevokeApiKeyRequest {
  @UserPrincipalField()
  principal!: UserPrincipal;

  @IsUUID()
  id!: string;
}

/**
 * A key as the console lists it; `app` and `scopes` appear only on OAuth-issued keys. `limits` lists
 * every spending limit of the key and `limit` repeats the one of the shortest period.
 */
export interface ApiKeySummary {
  id: string;
  name: string;
  short: string;
  createdAt: string;
  lastUsedAt: string | null;
  userId: string | null;
  app?: string;
  scopes?: string[];
  limit?: SpendingLimit;
  limits?: SpendingLimit[];
}

export interface ApiKeyList {
  data: ApiKeySummary[];
}

export interface Success {
  success: true;
}

export const AuthContracts = {
  resolveApiKey: rpc<ResolveApiKeyRequest, ResolvedApiKey>('auth.v1.resolve-api-key', ResolveApiKeyRequest),
  login: rpc<LoginRequest, AccessToken>('auth.v1.login', LoginRequest),
  /** The membership as it is now (a console JWT carries the role it had at login); forbidden when there is none. */
  currentMembership: rpc<CurrentMembershipRequest, Membership>(
    'auth.v1.current-membership',
    CurrentMembershipRequest,
  ),
  adminCreateUser: rpc<CreateUserRequest, AuthUser>('auth.v1.admin.create-user', CreateUserRequest),
  adminCreateOrganization: rpc<CreateOrganizationRequest, Organization>(
    'auth.v1.admin.create-organization',
    CreateOrganizationRequest,
  ),
  /** not_found (param `orgId`) for an organization that does not exist. */
  adminGetOrganization: rpc<GetOrganizationRequest, Organization>(
    'auth.v1.admin.get-organization',
    GetOrganizationRequest,
  ),
  adminSetMembership: rpc<SetMembershipRequest, Membership>(
    'auth.v1.admin.set-membership',
    SetMembershipRequest,
  ),
  adminCreateApiKey: rpc<AdminCreateApiKeyRequest, CreatedApiKey>(
    'auth.v1.admin.create-api-key',
    AdminCreateApiKeyRequest,
  ),
  consoleListApiKeys: rpc<ConsoleListApiKeysRequest, ApiKeyList>(
    'auth.v1.console.list-api-keys',
    ConsoleListApiKeysRequest,
  ),
  consoleCreateApiKey: rpc<ConsoleCreateApiKeyRequest, CreatedApiKey>(
    'auth.v1.console.create-api-key',
    ConsoleCreateApiKeyRequest,
  ),
  consoleRevokeApiKey: rpc<ConsoleRevokeApiKeyRequest, Success>(
    'auth.v1.console.revoke-api-key',
    ConsoleRevokeApiKeyRequest,
  ),
  consoleSetApiKeyLimits: rpc<ConsoleSetApiKeyLimitsRequest, KeyLimits>(
    'auth.v1.console.set-api-key-limits',
    ConsoleSetApiKeyLimitsRequest,
  ),
  adminSetApiKeyLimits: rpc<AdminSetApiKeyLimitsRequest, KeyLimits>(
    'auth.v1.admin.set-api-key-limits',
    AdminSetApiKeyLimitsRequest,
  ),
} as const;

export const AuthEvents = {
  /** Broadcast to every gateway replica so cached key lookups are dropped at once. */
  apiKeyRevoked: broadcast<ApiKeyRevokedEvent>('auth.v1.api-key-revoked', ApiKeyRevokedEvent),
} as const;
