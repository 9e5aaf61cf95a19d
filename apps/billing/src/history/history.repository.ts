import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { GenerationRequestType, HistoryListStatus, TokenUsage } from '@gw/contracts';
import { GenerationEntity } from './generation.entity';
import { HistoryFilter } from './history-filter';

/** The columns a list item needs, and nothing else: a page reads 20 narrow rows, not whole generations. */
export interface HistoryListRow {
  id: string;
  model: string;
  modelDisplayName: string;
  requestType: GenerationRequestType;
  provider: string | null;
  listStatus: HistoryListStatus;
  clientCost: string;
  usage: TokenUsage | null;
  generationTimeMs: number | null;
  createdAt: Date;
  apiKeyName: string | null;
  apiKeyShort: string | null;
}

/** Each sort key as the table's column and as the page's output column. */
const SORT_KEYS: Record<HistoryFilter['sortBy'], { column: string; output: string }> = {
  createdAt: { column: 'g."created_at"', output: 'p."createdAt"' },
  clientCost: { column: 'g."client_cost"', output: 'p."clientCost"' },
};

/**
 * The WHERE clause of a list query. Every condition starts from the organization, and each index of
 * the generations table (see the migrations) leads with it followed by one filter column.
 */
function whereClause(filter: HistoryFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [filter.organizationId];
  const conditions = ['g."organization_id" = $1'];
  const add = (condition: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.apiKeyId === null) conditions.push('g."api_key_id" IS NULL');
  else if (filter.apiKeyId !== undefined) add((n) => `g."api_key_id" = ${n}`, filter.apiKeyId);
  if (filter.requestType) add((n) => `g."request_type" = ${n}`, filter.requestType);
  if (filter.status) add((n) => `g."list_status" = ${n}`, filter.status);
  if (filter.createdFrom) add((n) => `g."created_at" >= ${n}`, filter.createdFrom);
  if (filter.createdTo) {
    const operator = filter.createdTo.inclusive ? '<=' : '<';
    add((n) => `g."created_at" ${operator} ${n}`, filter.createdTo.at);
  }
  return { sql: conditions.join(' AND '), params };
}

@Injectable()
export class HistoryRepository {
  constructor(
    @InjectRepository(GenerationEntity) private readonly rows: Repository<GenerationEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * The page and the total in one statement, so both come from one snapshot: as two queries they
   * disagreed while rows were being recorded (a total of 32 beside a page of 31). The count keeps its
   * own index scan; the page is left-joined to it so an empty page still carries the total.
   */
  async list(filter: HistoryFilter): Promise<{ rows: HistoryListRow[]; total: number }> {
    const where = whereClause(filter);
    const order = filter.sortOrder === 'ASC' ? 'ASC' : 'DESC';
    const sort = SORT_KEYS[filter.sortBy];
    const limitParam = where.params.length + 1;
    // created_at and id break ties, so paging through equal costs or timestamps never repeats or skips a row.
    const result = await this.dataSource.query<(HistoryListRow & { total: string })[]>(
      `SELECT c."total", p.*
         FROM (SELECT count(*)::bigint AS "total" FROM "billing"."generations" g WHERE ${where.sql}) c
         LEFT JOIN (
           SELECT g."id", g."model", COALESCE(m."display_name", g."model") AS "modelDisplayName",
                  g."request_type" AS "requestType", g."provider", g."list_status" AS "listStatus",
                  g."client_cost" AS "clientCost", g."usage", g."generation_time_ms" AS "generationTimeMs",
                  g."created_at" AS "createdAt", g."api_key_name" AS "apiKeyName", g."api_key_short" AS "apiKeyShort"
             FROM "billing"."generations" g
             LEFT JOIN "billing"."models" m ON m."model" = g."model"
            WHERE ${where.sql}
            ORDER BY ${sort.column} ${order}, g."created_at" ${order}, g."id" ${order}
            LIMIT $${limitParam} OFFSET $${limitParam + 1}
         ) p ON true
        ORDER BY ${sort.output} ${order}, p."createdAt" ${order}, p."id" ${order}`,
      [...where.params, filter.limit, filter.offset],
    );
    const rows = result.filter((row) => row.id !== null).map(({ total: _total, ...row }) => row);
    return { rows, total: Number(result[0].total) };
  }

  /** With `apiKeyId` the generation must also belong to that key: an API key sees only its own. */
  findOne(organizationId: string, id: string, apiKeyId?: string): Promise<GenerationEntity | null> {
    return this.rows.findOne({
      where: { organizationId, id, ...(apiKeyId !== undefined ? { apiKeyId } : {}) },
    });
  }
}
