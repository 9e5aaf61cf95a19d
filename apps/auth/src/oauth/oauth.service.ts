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
import { OAuthCodeEntity } from './oauth-code.entity';
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
   * The checks in the interface's order. A code is burnt at its first use, whatever comes of it
   * (RFC 6749 §4.1.2), by one conditional UPDATE, so of exchanges racing for it exactly one goes on
   * to the callback_url and verifier checks, and a wrong verifier leaves nothing to guess at. A use
   * of a used code is refused and revokes the key its exchange handed out.
   */
  async exchange(request: ExchangeAuthorizationCodeRequest): Promise<OAuthIssuedKey> {
    const codeHash = apiKeyHash(request.code);
    const row = await this.codes.findByHash(codeHash);
    if (!row) throw invalid(OAUTH_MESSAGES.invalidCode, 'code');
    if (row.usedAt) return this.replayed(row);
    const now = new Date();
    if (row.expiresAt <= now) throw invalid(OAUTH_MESSAGES.codeExpired, 'code');
    // Not expired at `now`: when another exchange consumed the code first, this is its second use.
    if (!(await this.codes.consume(codeHash, now))) return this.replayed(row);
    if (row.callbackUrl !== request.callbackUrl)
      throw invalid(OAUTH_MESSAGES.callbackMismatch, 'callback_url');
    if (!verifierMatchesChallenge(request.codeVerifier, row.codeChallenge)) {
      throw invalid(OAUTH_MESSAGES.invalidVerifier, 'code_verifier');
    }
    const key = await this.oauthKeys.issue({
      organizationId: row.organizationId,
      userId: row.userId,
      callbackUrl: row.callbackUrl,
      appName: row.appName,
      scopes: row.scopes,
      limits: row.spendingLimits,
    });
    const keyHash = apiKeyHash(key);
    if ((await this.codes.recordIssuedKey(codeHash, keyHash)).replayed) {
      // The code was used again while its key was being made: that use found nothing to revoke.
      await this.oauthKeys.revokeIssued(row.organizationId, keyHash);
      throw invalid(OAUTH_MESSAGES.codeUsed, 'code');
    }
    return { key, user_id: row.userId };
  }

  /** A second use of a code: refused, and the key its first use handed out (if any) revoked. */
  private async replayed(row: OAuthCodeEntity): Promise<never> {
    const issuedKeyHash = await this.codes.markReplayed(row.codeHash, new Date());
    if (issuedKeyHash) await this.oauthKeys.revokeIssued(row.organizationId, issuedKeyHash);
    throw invalid(OAUTH_MESSAGES.codeUsed, 'code');
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
