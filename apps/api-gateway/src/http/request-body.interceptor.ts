import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '@gw/contracts';
import type { Request, Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import type { CredentialKeyed } from '../security/credential-key';
import { LargeBodySlots } from './large-body-slots';
import { REQUEST_BODY_LIMIT } from './request-body-limit.decorator';
import { hasBody, readRequestBody, refuseDeclaredOverLimit } from './request-parsing';

/** A body above this (declared, or sent without a length) holds one of the bounded slots while it is read. */
const LARGE_BODY_BYTES = 1024 * 1024;
const LARGE_BODIES_PER_ADDRESS = 8;
const LARGE_BODIES_PER_CREDENTIAL = 4;

/**
 * Reads the request body once the route is known and its guards (authentication included) have
 * let the request in: an unknown route or a refused credential is answered without reading a
 * byte of it. Interceptors run after every guard and before the pipes that validate `@Body()`.
 */
@Injectable()
export class RequestBodyInterceptor implements NestInterceptor {
  private readonly slots = new LargeBodySlots(LARGE_BODIES_PER_ADDRESS, LARGE_BODIES_PER_CREDENTIAL);

  constructor(
    private readonly reflector: Reflector,
    @Inject(API_GATEWAY_ENV) private readonly env: ApiGatewayEnv,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<Request & CredentialKeyed>();
    const response = http.getResponse<Response>();
    if (!hasBody(request)) return next.handle();
    const routeLimit = this.reflector.getAllAndOverride<number | undefined>(REQUEST_BODY_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    const limit = routeLimit ?? this.env.JSON_BODY_LIMIT_BYTES;
    // Before the slot: a body that can never fit is told so, never to retry.
    refuseDeclaredOverLimit(request, limit, routeLimit !== undefined);
    this.holdSlotIfLarge(request, response);
    return from(readRequestBody(request, response, limit)).pipe(switchMap(() => next.handle()));
  }

  /** Takes a slot for a large body until the response is done, or refuses the request with 429. */
  private holdSlotIfLarge(request: Request & CredentialKeyed, response: Response): void {
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) <= LARGE_BODY_BYTES) return;
    // The client address every per-address limit counts: behind a trusted proxy, the forwarded one.
    const address = request.ip ?? 'unknown';
    const release = this.slots.tryAcquire(address, request.credentialKey ?? null);
    if (!release) {
      response.setHeader('Retry-After', '1');
      throw new DomainError('rate_limited', 'Too many large request bodies at once; retry when one is done');
    }
    response.once('close', release);
  }
}
