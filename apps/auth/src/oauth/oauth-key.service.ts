import { Injectable, Logger } from '@nestjs/common';
import {
  AuthEvents,
  BillingContracts,
  DomainError,
  type OAuthScope,
  type SpendingLimit,
} from '@gw/contracts';
import { RpcClient } from '@gw/platform';
import { ApiKeyRepository, type OAuthKeyGrant } from '../api-keys/api-key.repository';
import { generateApiKey } from '../api-keys/api-key-secret';
import { ApiKeyEntity } from '../api-keys/api-key.entity';

export interface OAuthKeyRequest {
  organizationId: string;
  userId: string;
  callbackUrl: string;
  appName: string | null;
  scopes: OAuthScope[];
  limits: SpendingLimit[];
}

/**
 * DESIGN.md §5.8: an application is the callback_url's origin together with app_name. The two are
 * joined by a character a URL origin cannot contain.
 */
export function oauthClientOf(callbackUrl: string, appName: string | null): string {
  return `${new URL(callbackUrl).origin}\n${appName ?? ''}`;
}

/** What the console shows as the application: its name, or where it lives when it gave none. */
function applicationLabel(callbackUrl: string, appName: string | null): string {
  return appName ?? new URL(callbackUrl).host;
}

/**
 * The key an OAuth grant yields: a new ordinary API key of the organization, bound to the user, or
 * (when the user authorized the same application for the same organization before) that key
 * rotated: same id, new secret, the new scopes and limits, the old secret dropped by every gateway.
 */
@Injectable()
export class OAuthKeyService {
  private readonly logger = new Logger(OAuthKeyService.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly rpc: RpcClient,
  ) {}

  async issue(request: OAuthKeyRequest): Promise<string> {
    const oauthClient = oauthClientOf(request.callbackUrl, request.appName);
    const label = applicationLabel(request.callbackUrl, request.appName);
    const grant: OAuthKeyGrant = { name: label, app: label, scopes: request.scopes };
    // A second round only when another exchange of the same application created its key meanwhile.
    for (let round = 0; round < 2; round++) {
      const existing = await this.keys.findActiveOAuthKey(
        request.organizationId,
        request.userId,
        oauthClient,
      );
      if (existing) return this.rotate(existing, grant, request.limits);
      const created = await this.create(request, oauthClient, grant);
      if (created) return created;
    }
    throw new DomainError('conflict', 'The application is being authorized concurrently; try again');
  }

  private async create(
    request: OAuthKeyRequest,
    oauthClient: string,
    grant: OAuthKeyGrant,
  ): Promise<string | null> {
    const { key, keyHash, short } = generateApiKey();
    const row = await this.keys.insertOAuthKey(request.organizationId, {
      userId: request.userId,
      keyHash,
      short,
      oauthClient,
      ...grant,
    });
    if (!row) return null;
    try {
      await this.enforceLimits(row, [], request.limits);
    } catch (err) {
      // A key whose limit billing refused must never run unlimited: it goes before anyone saw it.
      await this.keys.delete(row.organizationId, row.id);
      throw err;
    }
    return key;
  }

  /** Limits first: the old secret may spend under the new limits for a moment, never beyond them. */
  private async rotate(
    existing: ApiKeyEntity,
    grant: OAuthKeyGrant,
    limits: SpendingLimit[],
  ): Promise<string> {
    await this.enforceLimits(existing, existing.spendingLimits, limits);
    const { key, keyHash, short } = generateApiKey();
    if (
      !(await this.keys.rotate(
        existing.organizationId,
        existing.id,
        existing.keyHash,
        { keyHash, short },
        grant,
      ))
    ) {
      throw new DomainError('conflict', 'The application is being authorized concurrently; try again');
    }
    await this.announceRevoked(existing.id, existing.keyHash, 'Rotation');
    return key;
  }

  /**
   * A replayed authorization code (RFC 6749 §4.1.2): the secret its exchange handed out stops
   * working, if it is still the key's (a later authorization of the application may have rotated it).
   */
  async revokeIssued(organizationId: string, keyHash: string): Promise<void> {
    const apiKeyId = await this.keys.revokeSecret(organizationId, keyHash, new Date());
    if (apiKeyId) await this.announceRevoked(apiKeyId, keyHash, 'Revocation');
  }

  /** Every gateway drops the secret from its cache at once. */
  private async announceRevoked(apiKeyId: string, keyHash: string, what: string): Promise<void> {
    try {
      await this.rpc.broadcast(AuthEvents.apiKeyRevoked, { apiKeyId, keyHash });
    } catch (err) {
      // The secret is gone from the database either way; gateways then drop it when their cache entry expires.
      this.logger.warn(`${what} of API key ${apiKeyId} was not broadcast: ${(err as Error).message}`);
    }
  }

  /** Billing, which enforces the limits, is told first; the copy on the key row is what the console shows. */
  private async enforceLimits(
    key: ApiKeyEntity,
    previous: SpendingLimit[],
    limits: SpendingLimit[],
  ): Promise<void> {
    if (limits.length === 0 && previous.length === 0) return;
    const enforced = await this.rpc.request(BillingContracts.setKeyLimits, {
      organizationId: key.organizationId,
      apiKeyId: key.id,
      limits: limits.map(({ period, amount }) => ({ period, amount })),
    });
    await this.keys.setLimits(key.organizationId, key.id, enforced.limits);
  }
}
