import {
  registerDecorator,
  ValidateBy,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { isPlainObject } from '../common/nested-object';

export const TOOL_CHOICE_VALUES = ['none', 'auto', 'required'] as const;

/** `none`, `auto`, `required`, or `{type: 'function', function: {name}}`. */
export function IsToolChoice(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isToolChoice',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be one of none, auto, required or {"type": "function", "function": {"name": ...}}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (typeof value === 'string') return (TOOL_CHOICE_VALUES as readonly string[]).includes(value);
          const v = value as { type?: unknown; function?: { name?: unknown } } | null;
          return (
            typeof v === 'object' &&
            v !== null &&
            v.type === 'function' &&
            typeof v.function?.name === 'string'
          );
        },
      },
    });
}

/**
 * Fails only when the property is absent. Unlike `@IsDefined`, an explicit null is left to the
 * type check that follows, so `"messages": null` is named as the wrong type it is.
 */
export function IsPresent(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPresent',
      validator: {
        validate: (value) => value !== undefined,
        defaultMessage: (args) => `${args?.property} is required`,
      },
    },
    options,
  );
}

/** Fails when `other` is also present, for pairs of which a request sets exactly one. */
export function IsAbsentWith(other: string, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isAbsentWith',
      target: target.constructor,
      propertyName,
      constraints: [other],
      options: { message: `Exactly one of ${other} or ${propertyName} may be set`, ...options },
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          (args.object as Record<string, unknown>)[other] === undefined,
      },
    });
}

/** A tool_choice that forces a tool needs tools, and a named one must be among them. */
export function IsDeclaredToolChoice(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isDeclaredToolChoice',
      target: target.constructor,
      propertyName,
      options: { message: (args) => declaredToolProblem(args.value, args.object) ?? '', ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          declaredToolProblem(value, args.object) === null,
      },
    });
}

function declaredToolProblem(choice: unknown, body: object): string | null {
  const tools = (body as { tools?: Array<{ function?: { name?: unknown } }> }).tools;
  const names = Array.isArray(tools) ? tools.map((tool) => tool?.function?.name) : [];
  if (choice === 'required' && names.length === 0)
    return 'tool_choice required needs at least one tool in tools';
  const named =
    typeof choice === 'object' && choice !== null
      ? (choice as { function?: { name?: unknown } }).function?.name
      : undefined;
  if (named !== undefined && !names.includes(named))
    return `tool_choice names the function ${typeof named === 'string' ? named : JSON.stringify(named)}, which is not declared in tools`;
  return null;
}

/** A price limit: a non-negative number or decimal string (roubles per million tokens). */
export function IsPriceLimit(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPriceLimit',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a non-negative number or decimal string`, ...options },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'number' && Number.isFinite(value) && value >= 0) ||
          (typeof value === 'string' && /^\d{1,12}(\.\d{1,8})?$/.test(value)),
      },
    });
}

export const MAX_STOP_SEQUENCES = 4;

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** `stop`: one non-empty string or an array of at most four. */
export function IsStopSequences(): PropertyDecorator {
  return ValidateBy({
    name: 'isStopSequences',
    validator: {
      validate: (value) =>
        isNonEmptyString(value) ||
        (Array.isArray(value) && value.length <= MAX_STOP_SEQUENCES && value.every(isNonEmptyString)),
      defaultMessage: (args) =>
        `${args?.property} must be a non-empty string or an array of at most ${MAX_STOP_SEQUENCES} non-empty strings`,
    },
  });
}

/** `logit_bias`: token ids (as the JSON keys they must be) mapped to a bias from -100 to 100. */
export function IsLogitBias(): PropertyDecorator {
  return ValidateBy({
    name: 'isLogitBias',
    validator: {
      validate: (value) =>
        isPlainObject(value) &&
        Object.entries(value).every(
          ([token, bias]) => /^\d+$/.test(token) && typeof bias === 'number' && bias >= -100 && bias <= 100,
        ),
      defaultMessage: (args) =>
        `${args?.property} must be an object mapping token ids to numbers from -100 to 100`,
    },
  });
}
