import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Principal } from '@gw/contracts';
import { ErrorEnvelopeDto } from '@gw/dto';
import { ApiKeyRateLimitGuard } from '../rate-limits/api-key-rate-limit.guard';
import { CredentialGuard } from './credential.guard';

export type CredentialKind = Principal['kind'];
export const ACCEPTED_CREDENTIALS = 'gateway:accepted-credentials';

/** Requires `Authorization: Bearer <API key or JWT>`; `kinds` narrows which of the two a route accepts. */
export function Authenticated(...kinds: CredentialKind[]) {
  const accepted: CredentialKind[] = kinds.length > 0 ? kinds : ['api_key', 'user'];
  return applyDecorators(
    SetMetadata(ACCEPTED_CREDENTIALS, accepted),
    UseGuards(CredentialGuard, ApiKeyRateLimitGuard),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'Missing or invalid credentials', type: ErrorEnvelopeDto }),
    ApiForbiddenResponse({
      description: 'Credential kind not allowed on this route',
      type: ErrorEnvelopeDto,
    }),
    ApiTooManyRequestsResponse({
      description: 'Rate limit of the API key or its organization; see Retry-After',
      type: ErrorEnvelopeDto,
    }),
  );
}

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ principal: Principal }>().principal,
);
