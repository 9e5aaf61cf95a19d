import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ORGANIZATION_ROLES, OrganizationRole, UserPrincipal } from '@gw/contracts';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';

export const JWT_STRATEGY = 'jwt';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Verifies the console JWT that auth signs (HS256 with the shared JWT_SECRET); expiry is enforced,
 * and a token without one is refused (the verifier checks `exp` only when it is present).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(API_GATEWAY_ENV) env: ApiGatewayEnv) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: env.JWT_SECRET,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  /** A correctly signed token with claims we do not understand is still refused. */
  validate(payload: Record<string, unknown>): UserPrincipal | false {
    const { sub, org, role, exp } = payload;
    if (typeof exp !== 'number') return false;
    if (typeof sub !== 'string' || !UUID.test(sub) || typeof org !== 'string' || !UUID.test(org))
      return false;
    if (!ORGANIZATION_ROLES.includes(role as OrganizationRole)) return false;
    return { kind: 'user', organizationId: org, userId: sub, role: role as OrganizationRole };
  }
}
