import { Decimal } from 'decimal.js';
import type { GenerationFinalStatus, HistoryListStatus } from '@gw/contracts';
import { minMoney } from '../money/money';

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
