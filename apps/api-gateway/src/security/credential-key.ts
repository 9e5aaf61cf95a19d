import type { Principal } from '@gw/contracts';

/**
 * Who a request was authenticated as, in one string per credential (an API key, a console user,
 * the operator), set by the guard that accepted it. Bounds that count per credential read it.
 */
export interface CredentialKeyed {
  credentialKey?: string;
}

export function principalCredentialKey(principal: Principal): string {
  switch (principal.kind) {
    case 'api_key':
      return `api_key:${principal.apiKeyId}`;
    case 'user':
      return `user:${principal.userId}`;
  }
}

export const OPERATOR_CREDENTIAL_KEY = 'operator';
