import { durableEvent, rpc } from '../contract';
import type { Principal } from '../principal';

/** Money always travels as a decimal string (DESIGN.md §5.11). */
export type DecimalString = string;

export interface ReserveCreditRequest {
  generationId: string;
  organizationId: string;
  apiKeyId: string | null;
  /** The most the request can cost; billing holds min(maxAmount, what the balance and limits allow). */
  maxAmount: DecimalString;
  /** Below this the request is refused with 402; equal to maxAmount when the client fixed max_tokens. */
  minAmount: DecimalString;
  /**
   * Optional context, kept with the hold only so that a reservation that expires unsettled can be
   * recorded in history as a failed generation with its model and type.
   */
  model?: string;
  requestType?: GenerationRequestType;
  apiType?: string;
  responseMode?: GenerationResponseMode;
  apiKeyName?: string | null;
  apiKeyShort?: string | null;
  userId?: string | null;
}

export interface ReserveCreditResponse {
  generationId: string;
  reservedAmount: DecimalString;
}

export interface GetBalanceRequest {
  organizationId: string;
}

export interface BalanceResponse {
  amount: DecimalString;
}

export interface AddCreditsRequest {
  organizationId: string;
  amount: DecimalString;
  reason: string | null;
  idempotencyKey: string | null;
}

export const SPENDING_LIMIT_PERIODS = ['day', 'week', 'month', 'total'] as const;
/** day, week (from Monday) and month reset on UTC calendar boundaries; total never resets. */
export type SpendingLimitPeriod = (typeof SPENDING_LIMIT_PERIODS)[number];

export interface SpendingLimit {
  period: SpendingLimitPeriod;
  amount: DecimalString;
}

/** Replaces every limit of the key; an empty list removes them. Sent by auth after it checked the key and the caller. */
export interface SetKeyLimitsRequest {
  organizationId: string;
  apiKeyId: string;
  limits: SpendingLimit[];
}

export interface KeyLimits {
  apiKeyId: string;
  /** In period order day, week, month, total; amounts with 8 decimals. */
  limits: SpendingLimit[];
}

/** Error code of the history entry written when a reservation expires with no generation-finished event. */
export const RESERVATION_EXPIRED_ERROR_CODE = 'RESERVATION_EXPIRED';

export type GenerationRequestType = 'chat' | 'image' | 'video' | 'audio' | 'embedding';
export type GenerationResponseMode = 'sync' | 'stream' | 'async';
export type GenerationFinalStatus = 'completed' | 'failed' | 'cancelled';

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Published on JetStream when a generation ends, whatever the outcome. Billing settles the
 * reservation of `generationId` with `cost` (zero for a failure) and records the history entry;
 * processing is idempotent by `generationId`.
 */
export interface GenerationFinishedEvent {
  generationId: string;
  organizationId: string;
  apiKeyId: string | null;
  apiKeyName: string | null;
  apiKeyShort: string | null;
  userId: string | null;
  model: string;
  modelDisplayName: string;
  requestType: GenerationRequestType;
  apiType: string;
  responseMode: GenerationResponseMode;
  status: GenerationFinalStatus;
  finishReason: string | null;
  provider: string | null;
  usage: TokenUsage | null;
  cost: DecimalString;
  generationTimeMs: number | null;
  latencyMs: number | null;
  queueTimeMs: number | null;
  attemptsCount: number;
  isCancelled: boolean;
  error: { code: string; message: string } | null;
  createdAt: string;
  completedAt: string | null;
}

/** History lists and filters know only these; a cancelled generation is listed by whether it cost anything. */
export type HistoryListStatus = 'completed' | 'failed' | 'pending';

/** GET /v1/history/generations (interface): `apiKeyId` and `withoutApiKey` are for console (JWT) callers only. */
export interface HistoryQuery {
  page: number;
  limit: number;
  dateFrom?: string;
  dateTo?: string;
  requestType?: GenerationRequestType;
  status?: HistoryListStatus;
  apiKeyId?: string;
  withoutApiKey?: boolean;
  sortBy: 'createdAt' | 'clientCost';
  sortOrder: 'asc' | 'desc';
}

export interface ListHistoryRequest {
  principal: Principal;
  query: HistoryQuery;
}

/** The "History item" of the interface. */
export interface HistoryItem {
  id: string;
  model: string;
  modelDisplayName: string;
  requestType: GenerationRequestType;
  provider: string | null;
  status: HistoryListStatus;
  cost: DecimalString;
  usage: TokenUsage | null;
  generationTimeMs: number | null;
  createdAt: string;
  /** Null for an API-key caller: the interface shows the key name to console (JWT) callers. */
  apiKeyName: string | null;
  apiKeyShort: string | null;
}

export interface HistoryPage {
  items: HistoryItem[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}

export interface GetHistoryRequest {
  principal: Principal;
  id: string;
}

/** The "History detail" of the interface; `status` is the generation's own final status. */
export interface HistoryDetail {
  id: string;
  organizationId: string;
  apiKeyId: string | null;
  unifiedModelId: string;
  requestType: GenerationRequestType;
  apiType: string;
  responseMode: GenerationResponseMode;
  status: GenerationFinalStatus;
  finishReason: string | null;
  finalEndpointSlug: string | null;
  usage: TokenUsage | null;
  clientCost: DecimalString;
  generationTimeMs: number | null;
  latencyMs: number | null;
  queueTimeMs: number | null;
  isCancelled: boolean;
  createdAt: string;
  completedAt: string | null;
  attemptsCount: number;
}

export const BillingContracts = {
  reserve: rpc<ReserveCreditRequest, ReserveCreditResponse>('billing.v1.reserve'),
  getBalance: rpc<GetBalanceRequest, BalanceResponse>('billing.v1.get-balance'),
  addCredits: rpc<AddCreditsRequest, BalanceResponse>('billing.v1.add-credits'),
  listHistory: rpc<ListHistoryRequest, HistoryPage>('billing.v1.list-history'),
  getHistory: rpc<GetHistoryRequest, HistoryDetail>('billing.v1.get-history'),
  setKeyLimits: rpc<SetKeyLimitsRequest, KeyLimits>('billing.v1.set-key-limits'),
} as const;

export const BillingEvents = {
  generationFinished: durableEvent<GenerationFinishedEvent>('events.generation.finished'),
} as const;
