import { Injectable } from '@nestjs/common';
import {
  DomainError,
  HistoryDetail,
  HistoryItem,
  HistoryPage,
  HistoryQuery,
  Principal,
  TokenUsage,
} from '@gw/contracts';
import { formatMoney } from '../money/money';
import { GenerationEntity } from './generation.entity';
import { HistoryListRow } from './history.repository';
import { buildHistoryFilter } from './history-filter';
import { HistoryRepository } from './history.repository';

@Injectable()
export class HistoryService {
  constructor(private readonly history: HistoryRepository) {}

  async list(principal: Principal, query: HistoryQuery): Promise<HistoryPage> {
    const filter = buildHistoryFilter(principal, query);
    const { rows, total } = await this.history.list(filter);
    return {
      items: rows.map((row) => toHistoryItem(row, principal.kind === 'user')),
      meta: { page: filter.page, limit: filter.limit, total, totalPages: Math.ceil(total / filter.limit) },
    };
  }

  async get(principal: Principal, id: string): Promise<HistoryDetail> {
    const row = await this.history.findOne(
      principal.organizationId,
      id,
      principal.kind === 'api_key' ? principal.apiKeyId : undefined,
    );
    if (!row) throw new DomainError('not_found', `Generation ${id} not found`, 'id');
    return toHistoryDetail(row);
  }
}

/** The key's name is shown to console (JWT) callers, as the interface says; an API key sees only its short form. */
function toHistoryItem(row: HistoryListRow, showKeyName: boolean): HistoryItem {
  return {
    id: row.id,
    model: row.model,
    modelDisplayName: row.modelDisplayName,
    requestType: row.requestType,
    provider: row.provider,
    status: row.listStatus,
    cost: formatMoney(row.clientCost),
    usage: listedUsage(row.usage),
    generationTimeMs: row.generationTimeMs,
    createdAt: row.createdAt.toISOString(),
    apiKeyName: showKeyName ? row.apiKeyName : null,
    apiKeyShort: row.apiKeyShort,
  };
}

/** A list item shows the interface's three token counts; the detail keeps every billed part (decision 149). */
function listedUsage(usage: TokenUsage | null): TokenUsage | null {
  if (!usage) return null;
  const { prompt_tokens, completion_tokens, total_tokens } = usage;
  return { prompt_tokens, completion_tokens, total_tokens };
}

function toHistoryDetail(row: GenerationEntity): HistoryDetail {
  return {
    id: row.id,
    organizationId: row.organizationId,
    apiKeyId: row.apiKeyId,
    unifiedModelId: row.model,
    requestType: row.requestType,
    apiType: row.apiType,
    responseMode: row.responseMode,
    status: row.status,
    finishReason: row.finishReason,
    finalEndpointSlug: row.provider,
    usage: row.usage,
    clientCost: formatMoney(row.clientCost),
    generationTimeMs: row.generationTimeMs,
    latencyMs: row.latencyMs,
    queueTimeMs: row.queueTimeMs,
    isCancelled: row.isCancelled,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
    attemptsCount: row.attemptsCount,
  };
}
