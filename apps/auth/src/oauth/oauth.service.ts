import { Injectable } from '@nestjs/common';
import {
  apiKeyHash,
  AUTHORIZATION_CODE_TTL_MS,
  ConsentContext,
  DomainError,
  ExchangeAuthorizationCodeRequest,
  IssueAuthorizationCodeRequest,
  IssuedAuthorizationCode,
  OAUTH_MESSAGES,
  OAuthIssuedKey,
  OAuthScope,
  OAuthUserInfo,
  UserInfoRequest,
  verifierMatchesChallenge,
} from '@gw/contracts';
import { randomBytes } from 'node:crypto';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { OrganizationRepository } from '../organizations/organization.repository';
import { UserRepository } from '../users/user.repository';
import { OAuthCodeRepository } from './oauth-code.repository';
import { OAuthKeyService } from './oauth-key.service';

/** Expired codes are kept this long, so their exchange says "expired" rather than "invalid". */
const EXPIRED_CODE_MEMORY_MS = 24 * 60 * 60_000;

/** The authorization-code flow with PKCE (interface: OAuth objects, states, Authentication 5-6). */
@Injectable()
export class OAuthService {
  constructor(
    private readonly codes: OAuthCodeRepository,
    private readonly keys: ApiKeyRepository,
    private readonly oauthKeys: OAuthKeyService,
    private readonly organizations: OrganizationRepository,
    private readonly users: UserRepository,
  ) {}

  async consentContext(userId: string): Promise<ConsentContext> {
    const user = await this.users.findById(userId);
    if (!user) throw new DomainError('unauthorized', 'Unknown user');
    return {
      user: { id: user.id, name: user.name, email: user.email },
      organizations: await this.organizations.organizationsOf(user.id),
    };
  }

  /** The code is returned once and stored only as its digest. */
  async issueCode(request: IssueAuthorizationCodeRequest): Promise<IssuedAuthorizationCode> {
    if (!(await this.organizations.findMembership(request.organizationId, request.userId))) {
      throw new DomainError('forbidden', 'You are not a member of this organization', 'organizationId');
    }
    const now = Date.now();
    await this.codes.deleteExpiredBefore(new Date(now - EXPIRED_CODE_MEMORY_MS));
    const code = randomBytes(32).toString('base64url');
    await this.codes.insert({
      codeHash: apiKeyHash(code),
      userId: request.userId,
      organizationId: request.organizationId,
      callbackUrl: request.callbackUrl,
      codeChallenge: request.codeChallenge,
      appName: request.appName,
      scopes: request.scopes,
      spendingLimits: request.limits,
      expiresAt: new Date(now + AUTHORIZATION_CODE_TTL_MS),
    });
    return { code };
  }

  /**
   * The checks in the interface's order; the code is consumed only when every one passed, by one
   * conditional UPDATE, so of exchanges racing for it exactly one gets a key.
   */
  async exchange(request: ExchangeAuthorizationCodeRequest): Promise<OAuthIssuedKey> {
    const codeHash = apiKeyHash(request.code);
    const row = await this.codes.findByHash(codeHash);
    if (!row) throw invalid(OAUTH_MESSAGES.invalidCode, 'code');
    if (row.usedAt) throw invalid(OAUTH_MESSAGES.codeUsed, 'code');
    if (row.expiresAt.getTime() <= Date.now()) throw invalid(OAUTH_MESSAGES.codeExpired, 'code');
    if (row.callbackUrl !== request.callbackUrl)
      throw invalid(OAUTH_MESSAGES.callbackMismatch, 'callback_url');
    if (!verifierMatchesChallenge(request.codeVerifier, row.codeChallenge)) {
      throw invalid(OAUTH_MESSAGES.invalidVerifier, 'code_verifier');
    }
    const now = new Date();
    if (!(await this.codes.consume(codeHash, now))) {
      throw row.expiresAt <= now
        ? invalid(OAUTH_MESSAGES.codeExpired, 'code')
        : invalid(OAUTH_MESSAGES.codeUsed, 'code');
    }
    const key = await this.oauthKeys.issue({
      organizationId: row.organizationId,
      userId: row.userId,
      callbackUrl: row.callbackUrl,
      appName: row.appName,
      scopes: row.scopes,
      limits: row.spendingLimits,
    });
    return { key, user_id: row.userId };
  }

  /** Keys from before OAuth, or made in the console for a user, grant `user:id` only. */
  async userInfo(request: UserInfoRequest): Promise<OAuthUserInfo> {
    const key = await this.keys.findActive(request.organizationId, request.apiKeyId);
    if (!key) throw new DomainError('invalid_api_key', 'Invalid API key');
    if (!key.userId) throw new DomainError('forbidden', 'This API key is not bound to a user');
    const user = await this.users.findById(key.userId);
    if (!user) throw new DomainError('forbidden', 'This API key is not bound to a user');
    const scopes = new Set<string>(key.scopes ?? []);
    const granted = (scope: OAuthScope) => scopes.has(scope);
    return {
      id: user.id,
      ...(granted('user:name') ? { name: user.name } : {}),
      ...(granted('user:email') ? { email: user.email } : {}),
    };
  }
}

function invalid(message: string, param: string): DomainError {
  return new DomainError('invalid_request', message, param);
}
