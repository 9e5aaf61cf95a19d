import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isPlainObject } from '../common/nested-object';

const DECIMAL = /^\d{1,12}(\.\d{1,12})?$/;

/** A price: a non-negative decimal string, or an empty object where the unit does not apply. */
export function IsPriceValue(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPriceValue',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a non-negative decimal string or {}`, ...options },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && DECIMAL.test(value)) ||
          (isPlainObject(value) && Object.keys(value).length === 0),
      },
    });
}

/**
 * Written, and either a positive integer or null where the limit does not apply: a catalogue says
 * so explicitly rather than leaving a limit out.
 */
export function IsCountOrNull(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCountOrNull',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a positive integer or null`, ...options },
      validator: {
        validate: (value: unknown) => value === null || (Number.isInteger(value) && (value as number) >= 1),
      },
    });
}

/** Written, and either a finite number or null where there is no such value. */
export function IsNumberOrNull(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isNumberOrNull',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a number or null`, ...options },
      validator: {
        validate: (value: unknown) => value === null || (typeof value === 'number' && Number.isFinite(value)),
      },
    });
}

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

const DESCRIPTOR_TYPES: Record<string, (v: unknown) => boolean> = {
  required: (v) => typeof v === 'boolean',
  description: (v) => typeof v === 'string',
  max_length: (v) => typeof v === 'number',
  min: (v) => typeof v === 'number',
  max: (v) => typeof v === 'number',
  default: () => true,
  values: (v) => Array.isArray(v) && v.every((item) => typeof item === 'string'),
};

/** Parameter descriptors keyed by parameter name, each with only the descriptor fields of the interface. */
export function IsParameterDescriptors(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isParameterDescriptors',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must map parameter names to descriptors {required, description, max_length, min, max, default, values}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value as Record<string, unknown>).every(
            (descriptor) =>
              typeof descriptor === 'object' &&
              descriptor !== null &&
              Object.entries(descriptor).every(([key, v]) => DESCRIPTOR_TYPES[key]?.(v) ?? false),
          ),
      },
    });
}
