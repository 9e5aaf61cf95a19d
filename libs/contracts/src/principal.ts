/** Who is calling, as resolved by the gateway from the bearer credential and sent along with every message. */
export type OrganizationRole = 'admin' | 'member';

export interface ApiKeyPrincipal {
  kind: 'api_key';
  organizationId: string;
  apiKeyId: string;
  apiKeyName: string;
  apiKeyShort: string;
  userId: string | null;
}

export interface UserPrincipal {
  kind: 'user';
  organizationId: string;
  userId: string;
  role: OrganizationRole;
}

export type Principal = ApiKeyPrincipal | UserPrincipal;
