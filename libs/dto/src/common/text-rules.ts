import { ValidateBy } from 'class-validator';

/** A name people read must show something: `"   "` is refused as it would list as a blank. */
export function IsNotBlank(): PropertyDecorator {
  return ValidateBy({
    name: 'isNotBlank',
    validator: {
      validate: (value) => typeof value !== 'string' || /\S/.test(value),
      defaultMessage: (args) => `${args?.property} must contain a non-space character`,
    },
  });
}

/** PostgreSQL text cannot hold the NUL character, so a field stored there refuses it with a 400 rather than failing the insert. */
export function HasNoNul(): PropertyDecorator {
  return ValidateBy({
    name: 'hasNoNul',
    validator: {
      validate: (value) => typeof value !== 'string' || !value.includes('\u0000'),
      defaultMessage: (args) => `${args?.property} must not contain NUL characters`,
    },
  });
}
