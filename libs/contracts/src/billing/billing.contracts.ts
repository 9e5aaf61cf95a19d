import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsISO8601,
  IsUUID,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { durableEvent, rpc } from '../contract';
import { type Principal, PrincipalField } from '../principal';
import {
  DecimalAmount,
  isLimitAmount,
  isPositiveCreditAmount,
  isRecordableMoney,
  isServiceDecimal,
} from './decimal-amount';

export const GENERATION_REQUEST_TYPES = ['chat', 'image', 'video', 'audio', 'embedding'] as const;
export type GenerationRequestType = (typeof GENERATION_REQUEST_TYPES)[number];
export const GENERATION_RESPONSE_MODES = ['sync', 'stream', 'async'] as const;
export type GenerationResponseMode = (typeof GENERATION_RESPONSE_MODES)[number];
export const GENERATION_FINAL_STATUSES = ['completed', 'failed', 'cancelled'] as const;
export type GenerationFinalStatus = (typeof GENERATION_FINAL_STATUSES)[number];

/** Money always travels as a decimal string (DESIGN.md §5.11). */
export type DecimalString = string;

const NON_EMPTY_GENERATION_ID = { message: 'generationId must be a non-empty string' };
const serviceDecimal = (name: string) =>
  DecimalAmount(
    'isServiceDecimal',
    isServiceDecimal,
    `${name} must be a non-negative decimal string, e.g. "1.50"`,
  );
/** The largest value of a Postgres integer column, where history keeps counts and durations. */
const MAX_INT4 = 2_147_483_647;
const nullable = ValidateIf((_message, value) => value !== null && value !== undefined);

/** The wording of billing's rules is kept: callers and tests read these messages. */
export class ReserveCreditRequest {
  @IsString(NON_EMPTY_GENERATION_ID)
  @IsNotEmpty(NON_EMPTY_GENERATION_ID)
  generationId!: string;

  @IsUUID()
  organizationId!: string;

  @nullable
  @IsUUID(undefined, { message: 'apiKeyId must be a UUID or null' })
  apiKeyId!: string | null;

  /** The most the request can cost; billing holds min(maxAmount, what the balance and limits allow). */
  @serviceDecimal('maxAmount')
  maxAmount!: DecimalString;

  /** Below this the request is refused with 402; equal to maxAmount when the client fixed max_tokens. */
  @serviceDecimal('minAmount')
  minAmount!: DecimalString;

  /**
   * Optional context, kept with the hold only so that a reservation that expires unsettled can be
   * recorded in history as a failed generation with its model and type.
   */
  @IsOptional()
  @IsString()
  model?: string;

  @IsOptional()
  @IsIn(GENERATION_REQUEST_TYPES)
  requestType?: GenerationRequestType;

  @IsOptional()
  @IsString()
  apiType?: string;

  @IsOptional()
  @IsIn(GENERATION_RESPONSE_MODES)
  responseMode?: GenerationResponseMode;

  @IsOptional()
  @IsString()
  apiKeyName?: string | null;

  @IsOptional()
  @IsString()
  apiKeyShort?: string | null;

  @IsOptional()
  @IsUUID()
  userId?: string | null;
}

export interface ReserveCreditResponse {
  generationId: string;
  reservedAmount: DecimalString;
}

export class GetBalanceRequest {
  @IsUUID()
  organizationId!: string;
}

export interface BalanceResponse {
  amount: DecimalString;
}

/** One running generation whose hold its producer still needs. */
export class ReservationLease {
  @IsString(NON_EMPTY_GENERATION_ID)
  @IsNotEmpty(NON_EMPTY_GENERATION_ID)
  generationId!: string;

  @IsUUID()
  organizationId!: string;
}

/**
 * Sent every few seconds by a service for the generations it is running: each hold lives one
 * lease past the last renewal, so the hold of a generation whose process died is released soon.
 */
export class RenewReservationLeasesRequest {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ReservationLease)
  leases!: ReservationLease[];
}

export interface RenewReservationLeasesResponse {
  /** How many of them were still held (the others were settled or already released). */
  renewed: number;
}

/**
 * Asks to grow the hold of a running generation by `amount`, under the same balance and
 * spending-limit rules as a reserve. Billing grants what is free, possibly less than asked or
 * nothing; the hold never shrinks here.
 */
export class ExtendReservationRequest {
  @IsString(NON_EMPTY_GENERATION_ID)
  @IsNotEmpty(NON_EMPTY_GENERATION_ID)
  generationId!: string;

  @IsUUID()
  organizationId!: string;

  @serviceDecimal('amount')
  amount!: DecimalString;
}

export interface ExtendReservationResponse {
  generationId: string;
  /** The hold after the extension: what the generation may cost in all. */
  reservedAmount: DecimalString;
  /** What this call added, "0.00000000" when the balance or a limit had nothing left. */
  extendedAmount: DecimalString;
}

/** Lengths of `reason` and `idempotencyKey` are billing's rules, checked (and worded) by its ledger. */
export class AddCreditsRequest {
  @IsUUID()
  organizationId!: string;

  @DecimalAmount(
    'isPositiveCreditAmount',
    isPositiveCreditAmount,
    'amount must be a positive decimal string with at most 12 integer digits and 8 decimals, e.g. "100.00"',
  )
  amount!: DecimalString;

  @IsOptional()
  @IsString()
  reason!: string | null;

  @IsOptional()
  @IsString()
  idempotencyKey!: string | null;
}

export const SPENDING_LIMIT_PERIODS = ['day', 'week', 'month', 'total'] as const;
/** day, week (from Monday) and month reset on UTC calendar boundaries; total never resets. */
export type SpendingLimitPeriod = (typeof SPENDING_LIMIT_PERIODS)[number];

export class SpendingLimit {
  @IsIn(SPENDING_LIMIT_PERIODS, { message: `period must be one of ${SPENDING_LIMIT_PERIODS.join(', ')}` })
  period!: SpendingLimitPeriod;

  @DecimalAmount(
    'isLimitAmount',
    isLimitAmount,
    'amount must be a non-negative decimal string with at most 12 integer digits and 8 decimals, e.g. "10.00"',
  )
  amount!: DecimalString;
}

/**
 * Replaces every limit of the key; an empty list removes them. Sent by auth after it checked the key
 * and the caller. A period named twice is refused by billing itself.
 */
export class SetKeyLimitsRequest {
  @IsUUID(undefined, { message: 'organizationId must be a UUID' })
  organizationId!: string;

  @IsUUID(undefined, { message: 'apiKeyId must be a UUID' })
  apiKeyId!: string;

  @IsArray({ message: 'limits must be an array' })
  @IsObject({ each: true, message: 'limits must hold objects' })
  @ValidateNested({ each: true })
  @Type(() => SpendingLimit)
  limits!: SpendingLimit[];
}

export interface KeyLimits {
  apiKeyId: string;
  /** In period order day, week, month, total; amounts with 8 decimals. */
  limits: SpendingLimit[];
}

/** Error code of the history entry written when a reservation expires with no generation-finished event. */
export const RESERVATION_EXPIRED_ERROR_CODE = 'RESERVATION_EXPIRED';

/** The parts of prompt_tokens a provider reported, each counted in prompt_tokens too (OpenAI's and OpenRouter's convention). */
export class PromptTokensDetails {
  /** Read from the provider's cache. */
  @IsInt()
  @Min(0)
  cached_tokens!: number;

  /** Written to the provider's cache, of either duration. */
  @IsInt()
  @Min(0)
  cache_write_tokens!: number;

  /** Of cache_write_tokens, written to a one-hour cache (Anthropic's ephemeral_1h); the rest to the five-minute cache. */
  @IsInt()
  @Min(0)
  cache_write_1h_tokens!: number;

  @IsInt()
  @Min(0)
  audio_tokens!: number;

  /** Of audio_tokens, read from the cache. */
  @IsInt()
  @Min(0)
  cached_audio_tokens!: number;

  @IsInt()
  @Min(0)
  image_tokens!: number;
}

/** The parts of completion_tokens a provider reported, each counted in completion_tokens too. */
export class CompletionTokensDetails {
  @IsInt()
  @Min(0)
  reasoning_tokens!: number;

  @IsInt()
  @Min(0)
  audio_tokens!: number;

  @IsInt()
  @Min(0)
  image_tokens!: number;
}

/** What the provider ran besides the model (Anthropic's `server_tool_use`). */
export class ServerToolUse {
  @IsInt()
  @Min(0)
  web_search_requests!: number;
}

/**
 * A generation's token usage with every part it was billed for, so that its charge can be
 * explained line by line; the details are absent from entries recorded before they were kept.
 */
export class TokenUsage {
  @IsInt()
  @Min(0)
  prompt_tokens!: number;

  @IsInt()
  @Min(0)
  completion_tokens!: number;

  @IsInt()
  @Min(0)
  total_tokens!: number;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PromptTokensDetails)
  prompt_tokens_details?: PromptTokensDetails;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CompletionTokensDetails)
  completion_tokens_details?: CompletionTokensDetails;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ServerToolUse)
  server_tool_use?: ServerToolUse;
}

export class GenerationError {
  @IsString()
  code!: string;

  @IsString()
  message!: string;
}

/**
 * Published on JetStream when a generation ends, whatever the outcome. Billing settles the
 * reservation of `generationId` with `cost` (zero for a failure) and records the history entry;
 * processing is idempotent by `generationId`.
 */
export class GenerationFinishedEvent {
  @IsString()
  @IsNotEmpty()
  generationId!: string;

  @IsUUID()
  organizationId!: string;

  @nullable
  @IsUUID()
  apiKeyId!: string | null;

  @nullable
  @IsString()
  apiKeyName!: string | null;

  @nullable
  @IsString()
  apiKeyShort!: string | null;

  @nullable
  @IsUUID()
  userId!: string | null;

  @IsString()
  @IsNotEmpty()
  model!: string;

  @IsString()
  modelDisplayName!: string;

  @IsIn(GENERATION_REQUEST_TYPES)
  requestType!: GenerationRequestType;

  @IsString()
  @IsNotEmpty()
  apiType!: string;

  @IsIn(GENERATION_RESPONSE_MODES)
  responseMode!: GenerationResponseMode;

  @IsIn(GENERATION_FINAL_STATUSES)
  status!: GenerationFinalStatus;

  @nullable
  @IsString()
  finishReason!: string | null;

  @nullable
  @IsString()
  provider!: string | null;

  @nullable
  @IsObject()
  @ValidateNested()
  @Type(() => TokenUsage)
  usage!: TokenUsage | null;

  @DecimalAmount(
    'isRecordableMoney',
    isRecordableMoney,
    'cost must be a non-negative decimal string that numeric(20,8) holds',
  )
  cost!: DecimalString;

  @nullable
  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  generationTimeMs!: number | null;

  @nullable
  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  latencyMs!: number | null;

  @nullable
  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  queueTimeMs!: number | null;

  @IsInt()
  @Min(0)
  @Max(MAX_INT4)
  attemptsCount!: number;

  @IsBoolean()
  isCancelled!: boolean;

  @nullable
  @IsObject()
  @ValidateNested()
  @Type(() => GenerationError)
  error!: GenerationError | null;

  @IsISO8601({ strict: true }, { message: 'createdAt must be an ISO 8601 date-time' })
  createdAt!: string;

  @nullable
  @IsISO8601({ strict: true }, { message: 'completedAt must be an ISO 8601 date-time' })
  completedAt!: string | null;
}

/** A count or a duration an integer column holds. */
function isInt4Count(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_INT4;
}

/** A token count as TokenUsage takes it. */
function isTokenCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

function usageCountsHold(usage: TokenUsage | null): boolean {
  if (usage === null) return true;
  const { prompt_tokens_details, completion_tokens_details, server_tool_use } = usage;
  return (
    isTokenCount(usage.prompt_tokens) &&
    isTokenCount(usage.completion_tokens) &&
    isTokenCount(usage.total_tokens) &&
    [prompt_tokens_details, completion_tokens_details, server_tool_use].every(
      (details) => details === undefined || Object.values(details).every(isTokenCount),
    )
  );
}

/**
 * The bounds of a GenerationFinishedEvent its TypeScript type cannot promise: a cost numeric(20,8)
 * holds, durations and an attempt count an integer column holds, whole token counts. Its producer
 * checks them where it builds the event; an event that keeps them is not validated again by billing
 * in the same process, one that does not is, and is refused there as before (decision 191).
 */
export function generationFinishedBoundsHold(event: GenerationFinishedEvent): boolean {
  return (
    isRecordableMoney(event.cost) &&
    [event.generationTimeMs, event.latencyMs, event.queueTimeMs].every(
      (duration) => duration === null || isInt4Count(duration),
    ) &&
    isInt4Count(event.attemptsCount) &&
    usageCountsHold(event.usage)
  );
}

/** The bounds of a ReserveCreditRequest its type cannot promise: both amounts service decimals (decision 191). */
export function reserveAmountsHold(request: ReserveCreditRequest): boolean {
  return isServiceDecimal(request.maxAmount) && isServiceDecimal(request.minAmount);
}

/** Error code of the history entry of a generation whose answer the gateway could not deliver: not charged, or refunded. */
export const GENERATION_UNDELIVERED_ERROR_CODE = 'UNDELIVERED';

/**
 * Published on JetStream by the gateway when it gave up on a generation through no fault of the
 * client (the service or the bus went silent, the reply was lost): whatever the generation cost,
 * billing does not charge it, or refunds it if it was already settled. Idempotent by `generationId`.
 */
export class GenerationUndeliveredEvent {
  @IsString(NON_EMPTY_GENERATION_ID)
  @IsNotEmpty(NON_EMPTY_GENERATION_ID)
  generationId!: string;

  @IsUUID()
  organizationId!: string;

  /** Why the gateway gave up, in words for history and the ledger. */
  @IsString()
  @IsNotEmpty()
  reason!: string;
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

/** The query is the public API's, validated by the history query DTO of the dto library (see HistoryHandler). */
export class ListHistoryRequest {
  @PrincipalField()
  principal!: Principal;

  @IsObject()
  query!: HistoryQuery;
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

export class GetHistoryRequest {
  @PrincipalField()
  principal!: Principal;

  @IsString()
  id!: string;
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
  reserve: rpc<ReserveCreditRequest, ReserveCreditResponse>('billing.v1.reserve', ReserveCreditRequest),
  getBalance: rpc<GetBalanceRequest, BalanceResponse>('billing.v1.get-balance', GetBalanceRequest),
  renewLeases: rpc<RenewReservationLeasesRequest, RenewReservationLeasesResponse>(
    'billing.v1.renew-leases',
    RenewReservationLeasesRequest,
  ),
  extendReservation: rpc<ExtendReservationRequest, ExtendReservationResponse>(
    'billing.v1.extend-reservation',
    ExtendReservationRequest,
  ),
  addCredits: rpc<AddCreditsRequest, BalanceResponse>('billing.v1.add-credits', AddCreditsRequest),
  listHistory: rpc<ListHistoryRequest, HistoryPage>('billing.v1.list-history', ListHistoryRequest),
  getHistory: rpc<GetHistoryRequest, HistoryDetail>('billing.v1.get-history', GetHistoryRequest),
  setKeyLimits: rpc<SetKeyLimitsRequest, KeyLimits>('billing.v1.set-key-limits', SetKeyLimitsRequest),
} as const;

export const BillingEvents = {
  generationFinished: durableEvent<GenerationFinishedEvent>(
    'events.generation.finished',
    GenerationFinishedEvent,
  ),
  generationUndelivered: durableEvent<GenerationUndeliveredEvent>(
    'events.generation.undelivered',
    GenerationUndeliveredEvent,
  ),
} as const;
