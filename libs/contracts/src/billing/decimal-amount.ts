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

/** A field checked by `test`, refused with billing's own wording of the rule. */
export function DecimalAmount(
  name: string,
  test: (value: unknown) => boolean,
  message: string,
): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: (value) => test(value), defaultMessage: () => message } });
}
