import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, Principal } from '@gw/contracts';
import type { Request } from 'express';
import { ACCEPTED_CREDENTIALS, CredentialKind } from './authenticated.decorator';
import { bearerToken } from './bearer-token';
import { CredentialKeyed, principalCredentialKey } from './credential-key';
import { CredentialResolver } from './credential-resolver';

@Injectable()
export class CredentialGuard implements CanActivate {
  constructor(
    private readonly resolver: CredentialResolver,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context
      .switchToHttp()
      .getRequest<Request & CredentialKeyed & { principal?: Principal }>();
    const principal = await this.resolver.resolve(bearerToken(request.headers.authorization));
    const accepted = this.reflector.getAllAndOverride<CredentialKind[]>(ACCEPTED_CREDENTIALS, [
      context.getHandler(),
      context.getClass(),
    ]) ?? ['api_key', 'user'];
    if (!accepted.includes(principal.kind)) {
      throw new DomainError(
        'forbidden',
        principal.kind === 'api_key'
          ? 'This endpoint requires a console session (JWT), not an API key'
          : 'This endpoint requires an API key',
      );
    }
    request.principal = principal;
    request.credentialKey = principalCredentialKey(principal);
    return true;
  }
}
