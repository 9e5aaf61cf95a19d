import { Inject, Injectable } from '@nestjs/common';
import { AuthUser, CreateUserRequest, DomainError } from '@gw/contracts';
import { AuthEnv } from '../auth.env';
import { AUTH_ENV } from '../auth.tokens';
import { hashPassword } from './password';
import { UserRepository } from './user.repository';

@Injectable()
export class UserService {
  constructor(
    private readonly users: UserRepository,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {}

  async create(request: CreateUserRequest): Promise<AuthUser> {
    const email = request.email.trim();
    const user = await this.users.insert({
      email,
      name: request.name,
      passwordHash: await hashPassword(request.password, this.env.PASSWORD_HASH_COST),
    });
    if (!user) throw new DomainError('conflict', 'A user with this email already exists', 'email');
    return { id: user.id, email: user.email, name: user.name };
  }
}
