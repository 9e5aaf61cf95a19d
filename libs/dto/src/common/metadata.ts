import { ValidateBy } from 'class-validator';
import { isPlainObject } from './nested-object';

/** OpenAI's limits on `metadata`, which chat completions and responses both take. */
export const METADATA_MAX_KEYS = 16;
export const METADATA_KEY_MAX_LENGTH = 64;
export const METADATA_VALUE_MAX_LENGTH = 512;

function isMetadata(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= METADATA_MAX_KEYS &&
    entries.every(
      ([key, item]) =>
        key.length <= METADATA_KEY_MAX_LENGTH &&
        typeof item === 'string' &&
        item.length <= METADATA_VALUE_MAX_LENGTH,
    )
  );
}

/** Free key-value labels of a request: an object of at most 16 string values. */
export function IsMetadata(): PropertyDecorator {
  return ValidateBy({
    name: 'isMetadata',
    validator: {
      validate: isMetadata,
      defaultMessage: (args) =>
        `${args?.property} must be an object of at most ${METADATA_MAX_KEYS} string values (keys up to ${METADATA_KEY_MAX_LENGTH} characters, values up to ${METADATA_VALUE_MAX_LENGTH})`,
    },
  });
}

export const METADATA_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: METADATA_VALUE_MAX_LENGTH },
  maxProperties: METADATA_MAX_KEYS,
} as const;
