import { DynamicModule, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TransportModule, TransportOptions } from '@gw/platform';
import { ServiceDatabaseModule } from '@gw/platform/database';
import { ApiKeyHandler } from './api-keys/api-key.handler';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeyService } from './api-keys/api-key.service';
import { AuthEnv } from './auth.env';
import { AUTH_ENV } from './auth.tokens';
import { authDatabase } from './database/auth-database';
import { LoginHandler } from './login/login.handler';
import { LoginService } from './login/login.service';
import { OAuthCodeRepository } from './oauth/oauth-code.repository';
import { OAuthKeyService } from './oauth/oauth-key.service';
import { OAuthHandler } from './oauth/oauth.handler';
import { OAuthService } from './oauth/oauth.service';
import { OrganizationHandler } from './organizations/organization.handler';
import { OrganizationRepository } from './organizations/organization.repository';
import { OrganizationService } from './organizations/organization.service';
import { UserHandler } from './users/user.handler';
import { UserRepository } from './users/user.repository';
import { UserService } from './users/user.service';

export { AuthEnv } from './auth.env';
export { authDatabase } from './database/auth-database';
export const AUTH_QUEUE = 'auth';

export interface AuthOptions {
  env: AuthEnv;
  transport: TransportOptions;
}

/** Users, organizations, memberships, API keys, console login and OAuth key issuance; owns the `auth` schema. */
@Module({})
export class AuthModule {
  static register(options: AuthOptions): DynamicModule {
    const database = authDatabase(options.env.DATABASE_URL);
    return {
      module: AuthModule,
      imports: [
        TransportModule.forRoot(options.transport),
        ServiceDatabaseModule.register(database),
        JwtModule.register({ secret: options.env.JWT_SECRET, signOptions: { algorithm: 'HS256' } }),
      ],
      controllers: [UserHandler, OrganizationHandler, ApiKeyHandler, LoginHandler, OAuthHandler],
      providers: [
        { provide: AUTH_ENV, useValue: options.env },
        UserRepository,
        OrganizationRepository,
        ApiKeyRepository,
        UserService,
        OrganizationService,
        ApiKeyService,
        LoginService,
        OAuthCodeRepository,
        OAuthKeyService,
        OAuthService,
      ],
    };
  }
}
