import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ORGANIZATION_ROLES, OrganizationRole, UserPrincipal } from '@gw/contracts';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';

export const JWT_STRATEGY = 'jwt';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How far the clocks of auth and a gateway may disagree, in seconds. */
export const JWT_CLOCK_SKEW_SECONDS = 60;

/**
 * Whether a token's times are ones auth gives: issued (`iat`) not in the future, beyond the clock
 * skew, and expiring (`exp`) no later than JWT_TTL_SECONDS after its issue. The verifier checks
 * `exp` only when it is present and `iat` never, so a signed token could otherwise live for ever.
 */
export function consoleJwtTimesValid(
  payload: { iat?: unknown; exp?: unknown },
  ttlSeconds: number,
  nowSeconds = Date.now() / 1_000,
): boolean {
  const { iat, exp } = payload;
  if (typeof iat !== 'number' || typeof exp !== 'number') return false;
  return iat <= nowSeconds + JWT_CLOCK_SKEW_SECONDS && exp - iat <= ttlSeconds + JWT_CLOCK_SKEW_SECONDS;
}

/**
 * Verifies the console JWT that auth signs (HS256 with the shared JWT_SECRET, for JWT_TTL_SECONDS);
 * expiry is enforced, and a token without one, issued in the future or living longer than auth
 * issues them is refused.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly ttlSeconds: number;

  constructor(@Inject(API_GATEWAY_ENV) env: ApiGatewayEnv) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: env.JWT_SECRET,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
    this.ttlSeconds = env.JWT_TTL_SECONDS;
  }

  /** A correctly signed token with claims we do not understand is still refused. */
  validate(payload: Record<string, unknown>): UserPrincipal | false {
    if (!consoleJwtTimesValid(payload, this.ttlSeconds)) return false;
    const { sub, org, role } = payload;
    if (typeof sub !== 'string' || !UUID.test(sub) || typeof org !== 'string' || !UUID.test(org))
      return false;
    if (!ORGANIZATION_ROLES.includes(role as OrganizationRole)) return false;
    return { kind: 'user', organizationId: org, userId: sub, role: role as OrganizationRole };
  }
}
