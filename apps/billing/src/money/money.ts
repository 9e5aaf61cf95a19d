import { Decimal } from 'decimal.js';
import { DomainError } from '@gw/contracts';
import { isPositiveCreditAmount } from '@gw/dto';

/** Scale of every numeric(20,8) column; money on the wire is always written with exactly this many decimals. */
export const MONEY_SCALE = 8;
/** The largest value numeric(20,8) holds. */
export const MAX_MONEY = new Decimal('999999999999.99999999');

/** decimal.js writes tiny values with an exponent (1e-8) from toString(); another service may send that form. */
const DECIMAL_STRING = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_STRING.test(value);
}

/**
 * Reads a non-negative decimal string from another service. Extra decimals are rounded to the
 * column scale with the given rounding (a cap rounds up, a cost rounds half up).
 */
export function parseMoney(
  value: unknown,
  param: string,
  rounding: Decimal.Rounding = Decimal.ROUND_HALF_UP,
): Decimal {
  if (!isDecimalString(value)) {
    throw new DomainError(
      'invalid_request',
      `${param} must be a non-negative decimal string, e.g. "1.50"`,
      param,
    );
  }
  const amount = new Decimal(value).toDecimalPlaces(MONEY_SCALE, rounding);
  if (amount.greaterThan(MAX_MONEY)) throw new DomainError('invalid_request', `${param} is too large`, param);
  return amount;
}

/** An operator's credit: positive, at most 8 decimals, never silently rounded. */
export function parseCreditAmount(value: unknown): Decimal {
  if (!isPositiveCreditAmount(value)) {
    throw new DomainError(
      'invalid_request',
      'amount must be a positive decimal string with at most 12 integer digits and 8 decimals, e.g. "100.00"',
      'amount',
    );
  }
  return new Decimal(value);
}

export function formatMoney(value: Decimal.Value): string {
  return new Decimal(value).toFixed(MONEY_SCALE);
}

export function minMoney(a: Decimal, b: Decimal): Decimal {
  return a.lessThan(b) ? a : b;
}
