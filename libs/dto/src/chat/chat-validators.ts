import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/** Message content: a string, null, or a non-empty array of parts each with a string `type`; text and image_url parts are checked. */
export function IsChatContent(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isChatContent',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string, an array of content parts or null`, ...options },
      validator: {
        validate: (value: unknown) => {
          if (value === null || typeof value === 'string') return true;
          if (!Array.isArray(value)) return false;
          return value.length > 0 && value.every(isContentPart);
        },
      },
    });
}

function isContentPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null) return false;
  const p = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
  if (typeof p.type !== 'string') return false;
  if (p.type === 'text') return typeof p.text === 'string';
  if (p.type === 'image_url') return typeof p.image_url?.url === 'string' && p.image_url.url.length > 0;
  return true;
}

export const TOOL_CHOICE_VALUES = ['none', 'auto', 'required'] as const;

/** `none`, `auto`, `required`, or `{type: 'function', function: {name}}`. */
export function IsToolChoice(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isToolChoice',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be one of none, auto, required or {"type": "function", "function": {"name": ...}}`, ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value === 'string') return (TOOL_CHOICE_VALUES as readonly string[]).includes(value);
          const v = value as { type?: unknown; function?: { name?: unknown } } | null;
          return typeof v === 'object' && v !== null && v.type === 'function' && typeof v.function?.name === 'string';
        },
      },
    });
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
        validate: (_value: unknown, args: ValidationArguments) => (args.object as Record<string, unknown>)[other] === undefined,
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
      validator: { validate: (value: unknown, args: ValidationArguments) => declaredToolProblem(value, args.object) === null },
    });
}

function declaredToolProblem(choice: unknown, body: object): string | null {
  const tools = (body as { tools?: Array<{ function?: { name?: unknown } }> }).tools;
  const names = Array.isArray(tools) ? tools.map((tool) => tool?.function?.name) : [];
  if (choice === 'required' && names.length === 0) return 'tool_choice required needs at least one tool in tools';
  const named = typeof choice === 'object' && choice !== null ? (choice as { function?: { name?: unknown } }).function?.name : undefined;
  if (named !== undefined && !names.includes(named)) return `tool_choice names the function ${String(named)}, which is not declared in tools`;
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
          (typeof value === 'number' && Number.isFinite(value) && value >= 0) || (typeof value === 'string' && /^\d{1,12}(\.\d{1,8})?$/.test(value)),
      },
    });
}
