import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { DomainError } from '@gw/contracts';
import { ErrorEnvelopeDto } from '@gw/dto';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { bearerToken } from './bearer-token';
import { CredentialKeyed, OPERATOR_CREDENTIAL_KEY } from './credential-key';

/** The operator API (DESIGN.md §4): `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(API_GATEWAY_ENV) env: ApiGatewayEnv) {
    this.expected = digest(env.ADMIN_TOKEN);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & CredentialKeyed>();
    const token = bearerToken(request.headers.authorization);
    if (!timingSafeEqual(digest(token), this.expected))
      throw new DomainError('unauthorized', 'Invalid admin token');
    request.credentialKey = OPERATOR_CREDENTIAL_KEY;
    return true;
  }
}

export function AdminOnly() {
  return applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiBearerAuth('admin-token'),
    ApiUnauthorizedResponse({ description: 'Missing or invalid admin token', type: ErrorEnvelopeDto }),
  );
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
