import { Decimal } from 'decimal.js';
import type { SpendingLimitPeriod } from '@gw/contracts';
import { formatMoney } from '../money/money';
import { type SpendingWindow, windowEnd } from './spending-windows';

export interface LimitRoom {
  period: SpendingLimitPeriod;
  limit: Decimal;
  used: Decimal;
  /** What a new reservation may still hold in this window; negative when a limit was lowered below what is used. */
  room: Decimal;
  windowStart: Date;
}

/**
 * The limit that leaves the least room (held + spent in its current window against its amount),
 * or null for a key without limits. Ties go to the shorter period, the one that resets first.
 */
export function tightestLimit(
  limits: { period: SpendingLimitPeriod; amount: Decimal }[],
  spending: { period: SpendingLimitPeriod; held: Decimal; spent: Decimal }[],
  windows: SpendingWindow[],
): LimitRoom | null {
  let tightest: LimitRoom | null = null;
  for (const window of windows) {
    const limit = limits.find((l) => l.period === window.period);
    if (!limit) continue;
    const counter = spending.find((s) => s.period === window.period);
    const used = counter ? counter.held.plus(counter.spent) : new Decimal(0);
    const room = limit.amount.minus(used);
    if (tightest === null || room.lessThan(tightest.room)) {
      tightest = { period: window.period, limit: limit.amount, used, room, windowStart: window.start };
    }
  }
  return tightest;
}

export function limitExceededMessage(limit: LimitRoom, minAmount: Decimal): string {
  const end = windowEnd(limit.period, limit.windowStart);
  const resets = end ? `it resets at ${end.toISOString()}` : 'a total limit never resets';
  const need = minAmount.greaterThan(0)
    ? `, but this request needs at least ${formatMoney(minAmount)} RUB`
    : '';
  return `Spending limit exceeded: the ${limit.period} limit of this API key is ${formatMoney(limit.limit)} RUB and ${formatMoney(limit.used)} RUB of it is spent or held${need}; ${resets}. Raise the limit or wait for the reset.`;
}
