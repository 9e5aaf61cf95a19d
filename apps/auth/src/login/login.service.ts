import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AccessToken, DomainError, LoginRequest, OrganizationRole } from '@gw/contracts';
import { AUTH_ENV } from '../auth.tokens';
import { AuthEnv } from '../auth.env';
import { OrganizationRepository } from '../organizations/organization.repository';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../users/password';
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
    const cost = this.env.PASSWORD_HASH_COST;
    const passwordMatches = await verifyPassword(
      request.password,
      user?.passwordHash ?? decoyPasswordHash(cost),
    );
    if (!user || !passwordMatches) throw new DomainError('unauthorized', 'Invalid email or password');
    // The password is known only now: a hash made at a lower cost is replaced by one at today's.
    if (needsRehash(user.passwordHash, cost)) {
      await this.users.replacePasswordHash(
        user.id,
        user.passwordHash,
        await hashPassword(request.password, cost),
      );
    }

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
