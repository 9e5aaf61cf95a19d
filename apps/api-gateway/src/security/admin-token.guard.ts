import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { DomainError } from '@gw/contracts';
import { ErrorEnvelopeDto } from '@gw/dto';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { OperatorThrottle } from '../rate-limits/credential-attempt-throttle';
import { bearerToken } from './bearer-token';
import { CredentialKeyed, OPERATOR_CREDENTIAL_KEY } from './credential-key';

/**
 * The operator API (DESIGN.md §4): `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time,
 * with a backoff after failures of the client address (OperatorThrottle): an address that guessed
 * waits, whatever it sends; one that did not is never refused.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(
    @Inject(API_GATEWAY_ENV) env: ApiGatewayEnv,
    private readonly throttle: OperatorThrottle,
  ) {
    this.expected = digest(env.ADMIN_TOKEN);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request & CredentialKeyed>();
    const address = request.ip ?? '';
    await this.throttle.check(address, http.getResponse<Response>());
    const token = bearerToken(request.headers.authorization);
    if (!timingSafeEqual(digest(token), this.expected)) {
      await this.throttle.failed(address);
      throw new DomainError('unauthorized', 'Invalid admin token');
    }
    request.credentialKey = OPERATOR_CREDENTIAL_KEY;
    return true;
  }
}

export function AdminOnly() {
  return applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiBearerAuth('admin-token'),
    ApiUnauthorizedResponse({ description: 'Missing or invalid admin token', type: ErrorEnvelopeDto }),
    ApiTooManyRequestsResponse({
      description: 'Too many failed attempts from this address; see Retry-After',
      type: ErrorEnvelopeDto,
    }),
  );
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
