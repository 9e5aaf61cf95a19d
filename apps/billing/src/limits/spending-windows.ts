import type { SpendingLimitPeriod } from '@gw/contracts';

export interface SpendingWindow {
  period: SpendingLimitPeriod;
  start: Date;
}

/** `total` is one window that never resets. */
const TOTAL_WINDOW_START = new Date(0);

/** The UTC calendar window of `period` that contains `at`; weeks start on Monday. */
export function windowStart(period: SpendingLimitPeriod, at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (period) {
    case 'day':
      return new Date(day);
    case 'week':
      // getUTCDay() is 0 on Sunday: Sunday belongs to the week that began six days earlier.
      return new Date(day - ((at.getUTCDay() + 6) % 7) * 86_400_000);
    case 'month':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
    case 'total':
      return TOTAL_WINDOW_START;
  }
}

/** Every period's window at `at`: spending is counted for all of them, so a limit set later sees what was already spent. */
export function spendingWindows(at: Date): SpendingWindow[] {
  return (['day', 'week', 'month', 'total'] as const).map((period) => ({
    period,
    start: windowStart(period, at),
  }));
}

/** When the window that starts at `start` ends; null for `total`, which never resets. */
export function windowEnd(period: SpendingLimitPeriod, start: Date): Date | null {
  switch (period) {
    case 'day':
      return new Date(start.getTime() + 86_400_000);
    case 'week':
      return new Date(start.getTime() + 7 * 86_400_000);
    case 'month':
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    case 'total':
      return null;
  }
}
