import { Global, Module } from '@nestjs/common';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { CredentialResolver } from '../security/credential-resolver';
import { AdminController } from './admin.controller';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyRevocationHandler } from './api-key-revocation.handler';
import { ConsoleApiKeysController } from './console-api-keys.controller';
import { GatewayCredentialResolver } from './gateway-credential.resolver';
import { JwtStrategy } from './jwt.strategy';
import { LoginController } from './login.controller';

/** Enough for every key in active use on one replica; the oldest entries go first. */
const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/** Authentication of the gateway: the CredentialResolver every guarded route uses, and the auth routes. */
@Global()
@Module({
  controllers: [AdminController, LoginController, ConsoleApiKeysController, ApiKeyRevocationHandler],
  providers: [
    JwtStrategy,
    {
      provide: ApiKeyCache,
      inject: [API_GATEWAY_ENV],
      useFactory: (env: ApiGatewayEnv) =>
        new ApiKeyCache({ ttlMs: env.API_KEY_CACHE_TTL_MS, maxEntries: API_KEY_CACHE_MAX_ENTRIES }),
    },
    { provide: CredentialResolver, useClass: GatewayCredentialResolver },
  ],
  exports: [CredentialResolver],
})
export class GatewayAuthModule {}
