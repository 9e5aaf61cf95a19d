import { ValidateBy } from 'class-validator';

/**
 * A credit amount as the operator API accepts it: a plain decimal string, at most 12 integer digits
 * and 8 decimals (what numeric(20,8) holds), strictly positive. Exponents, signs and spaces are refused.
 */
export const CREDIT_AMOUNT_PATTERN = /^\d{1,12}(\.\d{1,8})?$/;

export function isPositiveCreditAmount(value: unknown): value is string {
  return typeof value === 'string' && CREDIT_AMOUNT_PATTERN.test(value) && /[1-9]/.test(value);
}

/** A spending limit: like a credit amount, but zero is allowed (it stops the key from spending). */
export function isLimitAmount(value: unknown): value is string {
  return typeof value === 'string' && CREDIT_AMOUNT_PATTERN.test(value);
}

/**
 * Money computed by another service. decimal.js writes tiny values with an exponent (1e-8) from
 * toString(), so that form is accepted here; billing rounds to its scale.
 */
export const SERVICE_DECIMAL_PATTERN = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

export function isServiceDecimal(value: unknown): value is string {
  return typeof value === 'string' && SERVICE_DECIMAL_PATTERN.test(value);
}

/**
 * Below numeric(20,8)'s largest value (999999999999.99999999) even once rounded to 8 places; a float
 * comparison is exact enough at this bound, since no real cost comes near it.
 */
const RECORDABLE_MONEY_BOUND = 999_999_999_999.99;

/** A service decimal that billing's numeric(20,8) columns can hold (a cost, once rounded to 8 places). */
export function isRecordableMoney(value: unknown): value is string {
  return isServiceDecimal(value) && Number(value) < RECORDABLE_MONEY_BOUND;
}

/** A field checked by `test`, refused with billing's own wording of the rule. */
export function DecimalAmount(
  name: string,
  test: (value: unknown) => boolean,
  message: string,
): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: (value) => test(value), defaultMessage: () => message } });
}
