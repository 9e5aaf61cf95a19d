import { Decimal } from 'decimal.js';
import type { GenerationFinalStatus, HistoryListStatus } from '@gw/contracts';
import { isDecimalString, MAX_MONEY, minMoney } from '../money/money';

export interface HoldState {
  amount: Decimal;
  /** False once the hold was released (it expired) or never made: the money may have been spent since. */
  active: boolean;
}

/**
 * The reservation is a hard cap: a generation never costs more than was held for it. Without an
 * active hold the charge is also capped by what the balance has free (balance − other holds), so a
 * late or unreserved event can never take the balance below zero; the rest is written off.
 */
export function chargeFor(cost: Decimal, hold: HoldState | null, available: Decimal): Decimal {
  if (hold?.active) return minMoney(cost, hold.amount);
  const free = available.greaterThan(0) ? available : new Decimal(0);
  return minMoney(hold ? minMoney(cost, hold.amount) : cost, free);
}

/**
 * History lists know only completed/failed/pending: a cancelled generation did not complete, so it
 * is listed failed, charged or not, as a stream the provider cut is.
 */
export function listStatusOf(status: GenerationFinalStatus): HistoryListStatus {
  return status === 'cancelled' ? 'failed' : status;
}

/** What a generation's status says about how it ended, where the producer reported no finish reason. */
const FINISH_REASON_OF_STATUS: Readonly<Record<GenerationFinalStatus, string>> = {
  completed: 'stop',
  failed: 'error',
  cancelled: 'cancelled',
};

/**
 * The finish reason history records, so that every finished generation has one: the one the
 * producer reported (the provider's, such as `content_filter` on a failed or `length` on a
 * cancelled generation), else the one its status implies. The one rule for every producer and for
 * reservations that expire.
 */
export function recordedFinishReason(
  status: GenerationFinalStatus,
  reported: string | null | undefined,
): string {
  return typeof reported === 'string' && reported !== '' ? reported : FINISH_REASON_OF_STATUS[status];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REQUEST_TYPES = ['chat', 'image', 'video', 'audio', 'embedding'];
const RESPONSE_MODES = ['sync', 'stream', 'async'];
const FINAL_STATUSES = ['completed', 'failed', 'cancelled'];

/**
 * Why an event can never be recorded, or null when it can. Such an event would fail on every
 * redelivery, so the consumer logs and drops it instead of retrying it forever.
 */
export function unprocessableReason(event: unknown): string | null {
  if (typeof event !== 'object' || event === null) return 'the event is not an object';
  const e = event as Record<string, unknown>;
  const problems: string[] = [];
  const text = (name: string) => {
    if (typeof e[name] !== 'string' || e[name] === '') problems.push(`${name} must be a non-empty string`);
  };
  const uuid = (name: string, nullable: boolean) => {
    if (nullable && (e[name] === null || e[name] === undefined)) return;
    if (typeof e[name] !== 'string' || !UUID.test(e[name])) problems.push(`${name} must be a UUID`);
  };
  const oneOf = (name: string, allowed: string[]) => {
    if (!allowed.includes(e[name] as string)) problems.push(`${name} must be one of ${allowed.join(', ')}`);
  };
  const instant = (name: string, nullable: boolean) => {
    if (nullable && (e[name] === null || e[name] === undefined)) return;
    if (typeof e[name] !== 'string' || Number.isNaN(new Date(e[name]).getTime()))
      problems.push(`${name} must be an ISO 8601 date-time`);
  };
  const count = (name: string, nullable: boolean) => {
    if (nullable && (e[name] === null || e[name] === undefined)) return;
    const value = e[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 2_147_483_647) {
      problems.push(`${name} must be a non-negative integer`);
    }
  };
  text('generationId');
  text('model');
  text('apiType');
  uuid('organizationId', false);
  uuid('apiKeyId', true);
  uuid('userId', true);
  oneOf('requestType', REQUEST_TYPES);
  oneOf('responseMode', RESPONSE_MODES);
  oneOf('status', FINAL_STATUSES);
  if (!isDecimalString(e['cost']) || new Decimal(e['cost']).greaterThan(MAX_MONEY)) {
    problems.push('cost must be a non-negative decimal string that numeric(20,8) holds');
  }
  instant('createdAt', false);
  instant('completedAt', true);
  count('generationTimeMs', true);
  count('latencyMs', true);
  count('queueTimeMs', true);
  count('attemptsCount', false);
  return problems.length > 0 ? problems.join('; ') : null;
}
