import {
  DomainError,
  type GenerationRequestType,
  type HistoryListStatus,
  type HistoryQuery,
  type Principal,
} from '@gw/contracts';

/** Which generations a history query may see and how it orders them; built from the principal, never from the query alone. */
export interface HistoryFilter {
  organizationId: string;
  /** `undefined`: every key of the organization; `null`: only generations made without a key. */
  apiKeyId?: string | null;
  requestType?: GenerationRequestType;
  status?: HistoryListStatus;
  createdFrom?: Date;
  /** Upper bound of created_at; exclusive for a bare date, month or year (the whole period counts), inclusive otherwise. */
  createdTo?: { at: Date; inclusive: boolean };
  sortBy: 'createdAt' | 'clientCost';
  sortOrder: 'ASC' | 'DESC';
  offset: number;
  limit: number;
  page: number;
}

const JWT_ONLY_MESSAGE =
  'apiKeyId and withoutApiKey are available only with a console session (JWT), not with an API key';

export function buildHistoryFilter(principal: Principal, query: HistoryQuery): HistoryFilter {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  const filter: HistoryFilter = {
    organizationId: principal.organizationId,
    sortBy: query.sortBy ?? 'createdAt',
    sortOrder: query.sortOrder === 'asc' ? 'ASC' : 'DESC',
    offset: (page - 1) * limit,
    limit,
    page,
    ...(query.requestType ? { requestType: query.requestType } : {}),
    ...(query.status ? { status: query.status } : {}),
  };
  if (principal.kind === 'api_key') {
    if (query.apiKeyId !== undefined) throw new DomainError('forbidden', JWT_ONLY_MESSAGE, 'apiKeyId');
    if (query.withoutApiKey !== undefined)
      throw new DomainError('forbidden', JWT_ONLY_MESSAGE, 'withoutApiKey');
    filter.apiKeyId = principal.apiKeyId;
  } else if (query.withoutApiKey === true) {
    if (query.apiKeyId !== undefined) {
      throw new DomainError(
        'invalid_request',
        'apiKeyId cannot be combined with withoutApiKey=true',
        'withoutApiKey',
      );
    }
    filter.apiKeyId = null;
  } else if (query.apiKeyId !== undefined) {
    filter.apiKeyId = query.apiKeyId;
  }
  if (query.dateFrom !== undefined) filter.createdFrom = parseInstant(query.dateFrom, 'dateFrom');
  if (query.dateTo !== undefined) filter.createdTo = parseUpperBound(query.dateTo);
  if (
    filter.createdFrom &&
    filter.createdTo &&
    filter.createdFrom.getTime() > filter.createdTo.at.getTime()
  ) {
    throw new DomainError('invalid_request', 'dateFrom must not be later than dateTo', 'dateFrom');
  }
  return filter;
}

function parseInstant(value: string, param: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    throw new DomainError(
      'invalid_request',
      `${param} must be an ISO 8601 date or date-time, e.g. 2026-11-01T00:00:00Z`,
      param,
    );
  }
  return at;
}

/** A bare calendar period (2026, 2026-11, 2026-11-30) as an upper bound means "up to the end of it". */
function parseUpperBound(value: string): { at: Date; inclusive: boolean } {
  const start = parseInstant(value, 'dateTo');
  const period = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(value);
  if (!period) return { at: start, inclusive: true };
  const end = new Date(start);
  if (period[3]) end.setUTCDate(end.getUTCDate() + 1);
  else if (period[2]) end.setUTCMonth(end.getUTCMonth() + 1);
  else end.setUTCFullYear(end.getUTCFullYear() + 1);
  return { at: end, inclusive: false };
}
