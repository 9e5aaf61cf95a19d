import { Injectable, Logger } from '@nestjs/common';
import {
  AdminCreateApiKeyRequest,
  AdminSetApiKeyLimitsRequest,
  ApiKeyList,
  ApiKeySummary,
  AuthEvents,
  BillingContracts,
  ConsoleCreateApiKeyRequest,
  ConsoleSetApiKeyLimitsRequest,
  ConsoleRevokeApiKeyRequest,
  CreatedApiKey,
  DomainError,
  KeyLimits,
  RateLimitOverrides,
  ResolvedApiKey,
  SPENDING_LIMIT_PERIODS,
  SpendingLimit,
  Success,
  UserPrincipal,
} from '@gw/contracts';
import { RpcClient } from '@gw/platform';
import { MembershipEntity } from '../organizations/membership.entity';
import { OrganizationRepository } from '../organizations/organization.repository';
import { OrganizationService } from '../organizations/organization.service';
import { UserRepository } from '../users/user.repository';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { generateApiKey } from './api-key-secret';

/** last_used_at is a hint for the console, not an audit log: one write per key per minute is enough. */
export const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger(ApiKeyService.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly organizations: OrganizationRepository,
    private readonly organizationService: OrganizationService,
    private readonly users: UserRepository,
    private readonly rpc: RpcClient,
  ) {}

  async adminCreate(request: AdminCreateApiKeyRequest): Promise<CreatedApiKey> {
    await this.organizationService.requireOrganization(request.organizationId);
    const userId = request.userId ?? null;
    if (userId && !(await this.organizations.findMembership(request.organizationId, userId))) {
      throw (await this.users.findById(userId))
        ? new DomainError('invalid_request', 'The user is not a member of this organization', 'userId')
        : new DomainError('not_found', `User ${userId} not found`, 'userId');
    }
    return this.create(request.organizationId, userId, request.name, request.limits);
  }

  async list(principal: UserPrincipal): Promise<ApiKeyList> {
    await this.currentMembership(principal);
    const rows = await this.keys.listActive(principal.organizationId);
    return { data: rows.map(toApiKeySummary) };
  }

  async consoleCreate(request: ConsoleCreateApiKeyRequest): Promise<CreatedApiKey> {
    await this.requireAdmin(request.principal);
    return this.create(
      request.principal.organizationId,
      request.principal.userId,
      request.name,
      request.limits,
    );
  }

  async consoleSetLimits(request: ConsoleSetApiKeyLimitsRequest): Promise<KeyLimits> {
    await this.requireAdmin(request.principal);
    return this.setLimits(request.principal.organizationId, request.id, request.limits);
  }

  async adminSetLimits(request: AdminSetApiKeyLimitsRequest): Promise<KeyLimits> {
    await this.organizationService.requireOrganization(request.organizationId);
    return this.setLimits(request.organizationId, request.id, request.limits);
  }

  async revoke(request: ConsoleRevokeApiKeyRequest): Promise<Success> {
    const { principal, id } = request;
    await this.requireAdmin(principal);
    const key = await this.keys.findActive(principal.organizationId, id);
    if (!key || !(await this.keys.revoke(principal.organizationId, id, new Date()))) {
      throw new DomainError('not_found', `API key ${id} not found`, 'id');
    }
    try {
      await this.rpc.broadcast(AuthEvents.apiKeyRevoked, { apiKeyId: key.id, keyHash: key.keyHash });
    } catch (err) {
      // The key is revoked in the database either way; gateways then drop it when their cache entry expires.
      this.logger.warn(`Revocation of API key ${key.id} was not broadcast: ${(err as Error).message}`);
    }
    return { success: true };
  }

  async resolve(keyHash: string): Promise<ResolvedApiKey> {
    const key = await this.keys.findActiveByHash(keyHash);
    if (!key) throw new DomainError('invalid_api_key', 'Invalid API key');
    const now = new Date();
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.keys.touch(
        key.organizationId,
        key.id,
        now,
        new Date(now.getTime() - LAST_USED_RESOLUTION_MS),
      );
    }
    const organization = await this.organizations.findById(key.organizationId);
    return {
      kind: 'api_key',
      organizationId: key.organizationId,
      apiKeyId: key.id,
      apiKeyName: key.name,
      apiKeyShort: key.short,
      userId: key.userId,
      ...(hasOverride(key) || (organization && hasOverride(organization))
        ? {
            rateLimits: {
              key: overridesOf(key),
              organization: organization ? overridesOf(organization) : NO_OVERRIDES,
            },
          }
        : {}),
    };
  }

  /**
   * Billing, which enforces the limits, is told first; the copy on the key row follows, so the
   * console never shows a limit that is not enforced. A retry repairs a copy that failed to save.
   */
  private async setLimits(organizationId: string, id: string, limits: SpendingLimit[]): Promise<KeyLimits> {
    if (!(await this.keys.findActive(organizationId, id))) {
      throw new DomainError('not_found', `API key ${id} not found`, 'id');
    }
    const enforced = await this.rpc.request(BillingContracts.setKeyLimits, {
      organizationId,
      apiKeyId: id,
      limits: limits.map(({ period, amount }) => ({ period, amount })),
    });
    if (!(await this.keys.setLimits(organizationId, id, enforced.limits))) {
      throw new DomainError('not_found', `API key ${id} not found`, 'id');
    }
    return enforced;
  }

  /** A key whose limits billing refused is deleted before anyone saw it: it must never run unlimited. */
  private async create(
    organizationId: string,
    userId: string | null,
    name: string,
    limits: SpendingLimit[] = [],
  ): Promise<CreatedApiKey> {
    const { key, keyHash, short } = generateApiKey();
    const row = await this.keys.insert(organizationId, { userId, name, keyHash, short });
    if (limits.length > 0) {
      try {
        await this.setLimits(organizationId, row.id, limits);
      } catch (err) {
        await this.keys.delete(organizationId, row.id);
        throw err;
      }
    }
    return { id: row.id, key, name: row.name, short: row.short };
  }

  /** The role comes from the database, not the JWT, so a demotion or removal takes effect before the token expires. */
  private async currentMembership(principal: UserPrincipal): Promise<MembershipEntity> {
    const membership = await this.organizations.findMembership(principal.organizationId, principal.userId);
    if (!membership) throw new DomainError('forbidden', 'You are not a member of this organization');
    return membership;
  }

  private async requireAdmin(principal: UserPrincipal): Promise<void> {
    const membership = await this.currentMembership(principal);
    if (membership.role !== 'admin')
      throw new DomainError('forbidden', 'Only organization admins can manage API keys');
  }
}

function toApiKeySummary(row: ApiKeyEntity): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    short: row.short,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    userId: row.userId,
    ...(row.app !== null ? { app: row.app } : {}),
    ...(row.scopes !== null ? { scopes: row.scopes } : {}),
    ...(row.spendingLimits.length > 0
      ? { limit: shortestPeriod(row.spendingLimits), limits: row.spendingLimits }
      : {}),
  };
}

function shortestPeriod(limits: SpendingLimit[]): SpendingLimit {
  return [...limits].sort(
    (a, b) => SPENDING_LIMIT_PERIODS.indexOf(a.period) - SPENDING_LIMIT_PERIODS.indexOf(b.period),
  )[0];
}

interface RateLimitColumns {
  rateLimitRpm: number | null;
  rateLimitConcurrent: number | null;
}

const NO_OVERRIDES: RateLimitOverrides = { requestsPerMinute: null, concurrent: null };

function hasOverride(row: RateLimitColumns): boolean {
  return row.rateLimitRpm !== null || row.rateLimitConcurrent !== null;
}

function overridesOf(row: RateLimitColumns): RateLimitOverrides {
  return { requestsPerMinute: row.rateLimitRpm, concurrent: row.rateLimitConcurrent };
}
