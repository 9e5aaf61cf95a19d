import { DomainError } from '@gw/contracts';
import type { Response } from 'express';
import { markRateLimitRefusal } from '../http/request-observer';

/** The 429 of every limit: `Retry-After` in whole seconds (at least one) and the error envelope. */
export function tooManyRequests(response: Response, retryAfterMs: number): DomainError {
  markRateLimitRefusal(response);
  response.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1_000))));
  return new DomainError('rate_limited', 'Too Many Requests');
}
