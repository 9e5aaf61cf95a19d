import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { RateLimiter, type RateLimitPolicy } from '@gw/platform';
import type { Request, Response } from 'express';
import { tooManyRequests } from '../rate-limits/too-many-requests';

/** Interface, Limits: 5 requests per minute on POST /auth/token, counted per client address (DESIGN.md §5.7). */
export const TOKEN_REQUESTS_PER_MINUTE = 5;

const POLICY: RateLimitPolicy = {
  requestsPerWindow: TOKEN_REQUESTS_PER_MINUTE,
  windowMs: 60_000,
  concurrent: 0,
  leaseTtlMs: 0,
};

/**
 * Counts every token request of a client address (the trusted-proxy-aware `req.ip`) before its
 * body is read, valid or not, in the shared limiter, so the count holds across gateway replicas.
 */
@Injectable()
export class TokenRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const admission = await this.limiter.admit(`oauth-token:address:${request.ip ?? ''}`, POLICY);
    if (!admission.admitted) throw tooManyRequests(http.getResponse<Response>(), admission.retryAfterMs);
    return true;
  }
}
