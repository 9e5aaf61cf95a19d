import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal, ApiKeyRateLimits, ResolvedApiKey } from '@gw/contracts';

/**
 * The rate limit overrides auth answered with a key, kept beside its principal rather than on it:
 * the principal travels on to the services with every request, the overrides concern the gateway
 * alone. Held weakly, so they live exactly as long as the cached principal.
 */
@Injectable()
export class ApiKeyRateLimitOverrides {
  private readonly byPrincipal = new WeakMap<ApiKeyPrincipal, ApiKeyRateLimits>();

  /** The principal to pass on, with its overrides remembered. */
  split(resolved: ResolvedApiKey): ApiKeyPrincipal {
    const { rateLimits, ...principal } = resolved;
    if (rateLimits) this.byPrincipal.set(principal, rateLimits);
    return principal;
  }

  of(principal: ApiKeyPrincipal): ApiKeyRateLimits | undefined {
    return this.byPrincipal.get(principal);
  }
}
