import { Injectable } from '@nestjs/common';
import {
  apiKeyHash,
  ApiKeyPrincipal,
  AuthContracts,
  DomainError,
  Principal,
  UserPrincipal,
} from '@gw/contracts';
import { RpcClient } from '@gw/platform';
import type { Request } from 'express';
import { ApiKeyRateLimitOverrides } from '../rate-limits/api-key-rate-limit-overrides';
import { CredentialResolver } from '../security/credential-resolver';
import { ApiKeyCache } from './api-key-cache';
import { looksLikeJwt } from './bearer-credential';
import { JwtStrategy } from './jwt.strategy';

/** The callbacks passport gives a strategy for one authentication attempt. */
interface StrategyAttempt {
  authenticate(request: Request, options: object): void;
  success(user: unknown): void;
  fail(challenge?: unknown): void;
  error(err: unknown): void;
}

/**
 * API keys: SHA-256 → cache → auth. Console JWTs: the passport-jwt strategy, then the membership as
 * auth has it now, so a demotion or removal takes effect before the token expires.
 */
@Injectable()
export class GatewayCredentialResolver extends CredentialResolver {
  constructor(
    private readonly rpc: RpcClient,
    private readonly cache: ApiKeyCache,
    private readonly jwtStrategy: JwtStrategy,
    private readonly rateLimitOverrides: ApiKeyRateLimitOverrides,
  ) {
    super();
  }

  resolve(token: string): Promise<Principal> {
    return looksLikeJwt(token) ? this.resolveUser(token) : this.resolveApiKey(token);
  }

  private async resolveUser(token: string): Promise<UserPrincipal> {
    const claimed = await this.verifyJwt(token);
    const membership = await this.rpc.request(AuthContracts.currentMembership, {
      organizationId: claimed.organizationId,
      userId: claimed.userId,
    });
    return { ...claimed, role: membership.role };
  }

  private resolveApiKey(key: string): Promise<ApiKeyPrincipal> {
    const keyHash = apiKeyHash(key);
    return this.cache.resolve(keyHash, async () =>
      this.rateLimitOverrides.split(await this.rpc.request(AuthContracts.resolveApiKey, { keyHash })),
    );
  }

  /**
   * Runs the strategy the way passport's own middleware does (a fresh object per attempt whose
   * prototype is the strategy), so the shared instance is never mutated and no global passport
   * registry is consulted.
   */
  private verifyJwt(token: string): Promise<UserPrincipal> {
    return new Promise((resolve, reject) => {
      const attempt = Object.create(this.jwtStrategy) as StrategyAttempt;
      attempt.success = (user) => resolve(user as UserPrincipal);
      attempt.fail = () => reject(new DomainError('unauthorized', 'Invalid or expired token'));
      attempt.error = (err) => reject(err);
      attempt.authenticate({ headers: { authorization: `Bearer ${token}` } } as Request, { session: false });
    });
  }
}
