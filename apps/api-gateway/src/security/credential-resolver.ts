import type { Principal } from '@gw/contracts';

/**
 * Turns a bearer token (API key or console JWT) into the caller's Principal, or throws a
 * DomainError (`invalid_api_key` / `unauthorized`). Implemented by the gateway's auth module.
 */
export abstract class CredentialResolver {
  abstract resolve(token: string): Promise<Principal>;
}
