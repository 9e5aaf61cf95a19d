import type { KeyLimits, SpendingLimit } from '../billing/billing.contracts';
import { broadcast, rpc } from '../contract';
import type { ApiKeyPrincipal, OrganizationRole, UserPrincipal } from '../principal';

/** The gateway never forwards a raw API key: it sends the SHA-256 hex digest, which is what auth stores. */
export interface ResolveApiKeyRequest {
  keyHash: string;
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

export interface ApiKeyRevokedEvent {
  apiKeyId: string;
  keyHash: string;
}

export const ORGANIZATION_ROLES: readonly OrganizationRole[] = ['admin', 'member'];

export interface CreateUserRequest {
  email: string;
  password: string;
  name: string;
}

export interface AuthUser {
  id: string;
  email: string;
  name: string;
}

export interface CreateOrganizationRequest {
  name: string;
}

export interface Organization {
  id: string;
  name: string;
}

export interface GetOrganizationRequest {
  organizationId: string;
}

export interface CurrentMembershipRequest {
  organizationId: string;
  userId: string;
}

export interface SetMembershipRequest {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
}

export interface Membership {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
}

export interface AdminCreateApiKeyRequest {
  organizationId: string;
  name: string;
  /** A member of the organization the key acts for. */
  userId?: string;
  limits?: SpendingLimit[];
}

/** The only message that ever carries the key itself. */
export interface CreatedApiKey {
  id: string;
  key: string;
  name: string;
  short: string;
}

export interface LoginRequest {
  email: string;
  password: string;
  organizationId?: string;
}

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Console calls carry the user the gateway verified from the JWT. */
export interface ConsoleListApiKeysRequest {
  principal: UserPrincipal;
}

export interface ConsoleCreateApiKeyRequest {
  principal: UserPrincipal;
  name: string;
  limits?: SpendingLimit[];
}

/** Console route: the caller must be an admin of the key's organization. */
export interface ConsoleSetApiKeyLimitsRequest {
  principal: UserPrincipal;
  id: string;
  limits: SpendingLimit[];
}

export interface AdminSetApiKeyLimitsRequest {
  organizationId: string;
  id: string;
  limits: SpendingLimit[];
}

export interface ConsoleRevokeApiKeyRequest {
  principal: UserPrincipal;
  id: string;
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
  resolveApiKey: rpc<ResolveApiKeyRequest, ResolvedApiKey>('auth.v1.resolve-api-key'),
  login: rpc<LoginRequest, AccessToken>('auth.v1.login'),
  /** The membership as it is now (a console JWT carries the role it had at login); forbidden when there is none. */
  currentMembership: rpc<CurrentMembershipRequest, Membership>('auth.v1.current-membership'),
  adminCreateUser: rpc<CreateUserRequest, AuthUser>('auth.v1.admin.create-user'),
  adminCreateOrganization: rpc<CreateOrganizationRequest, Organization>('auth.v1.admin.create-organization'),
  /** not_found (param `orgId`) for an organization that does not exist. */
  adminGetOrganization: rpc<GetOrganizationRequest, Organization>('auth.v1.admin.get-organization'),
  adminSetMembership: rpc<SetMembershipRequest, Membership>('auth.v1.admin.set-membership'),
  adminCreateApiKey: rpc<AdminCreateApiKeyRequest, CreatedApiKey>('auth.v1.admin.create-api-key'),
  consoleListApiKeys: rpc<ConsoleListApiKeysRequest, ApiKeyList>('auth.v1.console.list-api-keys'),
  consoleCreateApiKey: rpc<ConsoleCreateApiKeyRequest, CreatedApiKey>('auth.v1.console.create-api-key'),
  consoleRevokeApiKey: rpc<ConsoleRevokeApiKeyRequest, Success>('auth.v1.console.revoke-api-key'),
  consoleSetApiKeyLimits: rpc<ConsoleSetApiKeyLimitsRequest, KeyLimits>('auth.v1.console.set-api-key-limits'),
  adminSetApiKeyLimits: rpc<AdminSetApiKeyLimitsRequest, KeyLimits>('auth.v1.admin.set-api-key-limits'),
} as const;

export const AuthEvents = {
  /** Broadcast to every gateway replica so cached key lookups are dropped at once. */
  apiKeyRevoked: broadcast<ApiKeyRevokedEvent>('auth.v1.api-key-revoked'),
} as const;
