import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AccessToken, DomainError, LoginRequest, OrganizationRole } from '@gw/contracts';
import { AUTH_ENV } from '../auth.tokens';
import { AuthEnv } from '../auth.env';
import { OrganizationRepository } from '../organizations/organization.repository';
import { DECOY_PASSWORD_HASH, verifyPassword } from '../users/password';
import { UserRepository } from '../users/user.repository';

/** Claims of the console JWT besides `sub` (the user id), `iat` and `exp`. */
export interface ConsoleJwtClaims {
  org: string;
  role: OrganizationRole;
}

@Injectable()
export class LoginService {
  constructor(
    private readonly users: UserRepository,
    private readonly organizations: OrganizationRepository,
    private readonly jwt: JwtService,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {}

  async login(request: LoginRequest): Promise<AccessToken> {
    const user = await this.users.findByEmail(request.email.trim());
    // An unknown email still costs one scrypt, so timing does not tell which emails exist.
    const passwordMatches = await verifyPassword(request.password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
    if (!user || !passwordMatches) throw new DomainError('unauthorized', 'Invalid email or password');

    const membership = request.organizationId
      ? await this.organizations.findMembership(request.organizationId, user.id)
      : await this.organizations.firstMembershipOf(user.id);
    if (!membership) {
      throw request.organizationId
        ? new DomainError('forbidden', 'You are not a member of this organization', 'organizationId')
        : new DomainError('forbidden', 'You are not a member of any organization');
    }

    const claims: ConsoleJwtClaims = { org: membership.organizationId, role: membership.role };
    const accessToken = await this.jwt.signAsync(claims, {
      subject: user.id,
      expiresIn: this.env.JWT_TTL_SECONDS,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.env.JWT_TTL_SECONDS };
  }
}
