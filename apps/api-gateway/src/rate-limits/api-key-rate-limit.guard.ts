import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import type { Principal, RateLimitOverrides } from '@gw/contracts';
import { Admission, RateLimiter, RateLimitPolicy } from '@gw/platform';
import type { Request, Response } from 'express';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { ApiKeyRateLimitOverrides } from './api-key-rate-limit-overrides';
import { tooManyRequests } from './too-many-requests';

const MINUTE_MS = 60_000;
/**
 * The slots of a replica that died free within this. A running request's lease is renewed every
 * third of it (RateLimiter), so a request may run as long as it likes.
 */
const LEASE_TTL_MS = 9_000;

/**
 * Requests per minute and concurrent requests of an API key and of its organization, shared by
 * every replica: the key's or the organization's own figures where auth has them, else the defaults. Runs after the CredentialGuard; console (JWT) requests are not limited here.
 */
@Injectable()
export class ApiKeyRateLimitGuard implements CanActivate {
  private readonly logger = new Logger(ApiKeyRateLimitGuard.name);
  private readonly defaults: { key: RateLimitOverrides; organization: RateLimitOverrides };

  constructor(
    private readonly limiter: RateLimiter,
    private readonly overrides: ApiKeyRateLimitOverrides,
    @Inject(API_GATEWAY_ENV) env: ApiGatewayEnv,
  ) {
    this.defaults = {
      key: { requestsPerMinute: env.RATE_LIMIT_RPM_PER_KEY, concurrent: env.RATE_LIMIT_CONCURRENT_PER_KEY },
      organization: {
        requestsPerMinute: env.RATE_LIMIT_RPM_PER_ORGANIZATION,
        concurrent: env.RATE_LIMIT_CONCURRENT_PER_ORGANIZATION,
      },
    };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<Request & { principal?: Principal }>().principal;
    if (principal?.kind !== 'api_key') return true;
    const response = http.getResponse<Response>();
    const overrides = this.overrides.of(principal);
    const admissions = await Promise.all([
      this.limiter.admit(`api-key:${principal.apiKeyId}`, policy(this.defaults.key, overrides?.key)),
      this.limiter.admit(
        `organization:${principal.organizationId}`,
        policy(this.defaults.organization, overrides?.organization),
      ),
    ]);
    const admitted = admissions.filter((a) => a.admitted);
    const refused = admissions.find((a): a is Extract<Admission, { admitted: false }> => !a.admitted);
    if (refused) {
      // Given back before answering, so that the client's next request finds the counts it expects.
      await Promise.all(admitted.map((a) => a.cancel()));
      throw tooManyRequests(response, refused.retryAfterMs);
    }
    response.once('close', () => {
      void Promise.all(admitted.map((a) => a.release())).catch((err: unknown) =>
        this.logger.warn(`A rate limit lease was not given back: ${(err as Error).message}`),
      );
    });
    return true;
  }
}

function policy(defaults: RateLimitOverrides, override: RateLimitOverrides | undefined): RateLimitPolicy {
  return {
    requestsPerWindow: override?.requestsPerMinute ?? defaults.requestsPerMinute ?? 0,
    windowMs: MINUTE_MS,
    concurrent: override?.concurrent ?? defaults.concurrent ?? 0,
    leaseTtlMs: LEASE_TTL_MS,
  };
}
