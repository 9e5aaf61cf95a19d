import { DomainError } from '@gw/contracts';
import { isPlainObject } from '@gw/dto';

/**
 * Shape checks for the translators. The request DTOs validate these bodies first, but a
 * translator must never fail with a TypeError on input the validation let through: what it relies
 * on it checks here, and a body without that shape is a 400 naming the offending field.
 */
function refuse(param: string, expected: string): never {
  throw new DomainError('invalid_request', `${param} must be ${expected}`, param);
}

export function recordAt(value: unknown, param: string): Record<string, unknown> {
  return isPlainObject(value) ? value : refuse(param, 'an object');
}

export function listAt(value: unknown, param: string): unknown[] {
  return Array.isArray(value) ? value : refuse(param, 'an array');
}

export function stringAt(value: unknown, param: string): string {
  return typeof value === 'string' ? value : refuse(param, 'a string');
}

/** An object with a string `type`: every content block and input item of both APIs. */
export function typedAt(value: unknown, param: string): Record<string, unknown> & { type: string } {
  const record = recordAt(value, param);
  stringAt(record['type'], `${param}.type`);
  return record as Record<string, unknown> & { type: string };
}

/** A string, or an array of typed blocks: the content of a message in both APIs. */
export function contentAt(
  value: unknown,
  param: string,
): string | Array<Record<string, unknown> & { type: string }> {
  if (typeof value === 'string') return value;
  return listAt(value, param).map((block, i) => typedAt(block, `${param}[${i}]`));
}
