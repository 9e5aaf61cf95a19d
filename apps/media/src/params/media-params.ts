import { DomainError, type MediaSurface } from '@gw/contracts';
import type { ParameterDescriptorDto } from '@gw/dto';

/** A model's (or an operation's) parameters as its catalogue entry describes them. */
export type ParameterDescriptors = Readonly<Record<string, ParameterDescriptorDto>>;

export interface CheckedParams {
  /** What the generation runs with: the request's known parameters and the defaults of the others. */
  params: Record<string, unknown>;
  /** One line per parameter the model does not take, dropped from the request. */
  warnings: string[];
}

/**
 * The shape of parameters the descriptors cannot state (they have no type field): counts and
 * seconds are whole numbers, flags booleans, reference media lists of URLs. Any other parameter's
 * shape follows from its descriptor: `values` a choice of strings, `min`/`max` a number,
 * `max_length` a string, a `default` its value's type.
 */
const KNOWN_SHAPES: Readonly<Record<string, Shape>> = {
  prompt: 'string',
  n: 'integer',
  duration: 'integer',
  seeds: 'integer',
  output_compression: 'integer',
  watermark: 'boolean',
  timestamps: 'boolean',
  images: 'string-list',
  videos: 'string-list',
  language_code: 'string',
  previous_text: 'string',
  next_text: 'string',
};

type Shape = 'string' | 'number' | 'integer' | 'boolean' | 'string-list' | 'any';

const MAX_LIST_ITEMS = 16;
const MAX_LIST_ITEM_LENGTH = 4_096;

/** A checked parameter that is text, or `fallback` where it is absent. */
export function textParam(params: Readonly<Record<string, unknown>>, name: string, fallback = ''): string {
  const value = params[name];
  return typeof value === 'string' ? value : fallback;
}

/** A checked parameter that is a number, or `fallback` where it is absent. */
export function numberParam(
  params: Readonly<Record<string, unknown>>,
  name: string,
  fallback: number,
): number {
  const value = params[name];
  return typeof value === 'number' ? value : fallback;
}

/** Characters as a reader counts them (code points), for `max_length` and what speech is billed by. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Checks a request's `params` against the descriptors: each known parameter's shape and limits
 * (a 400 naming it, as `params.<name>` on `POST /v1/media` and as the field itself on the images and
 * speech routes, whose fields are the parameters), required ones present, defaults applied; a
 * parameter the model does not take is dropped and named in a warning.
 */
export function checkParams(
  descriptors: ParameterDescriptors,
  requested: Readonly<Record<string, unknown>>,
  surface: MediaSurface,
): CheckedParams {
  const params: Record<string, unknown> = {};
  const warnings: string[] = [];
  const paramName = (name: string) => (surface === 'media' ? `params.${name}` : name);
  for (const [name, value] of Object.entries(requested)) {
    if (!Object.hasOwn(descriptors, name)) {
      warnings.push(`Parameter ${name} is not supported by this model and was ignored`);
      continue;
    }
    if (value === undefined || value === null) continue;
    const problem = valueProblem(name, descriptors[name], value);
    if (problem) throw new DomainError('invalid_request', problem, paramName(name));
    params[name] = value;
  }
  for (const [name, descriptor] of Object.entries(descriptors)) {
    if (Object.hasOwn(params, name)) continue;
    if (descriptor.default !== undefined) params[name] = descriptor.default;
    else if (descriptor.required) {
      throw new DomainError('invalid_request', `${name} is required`, paramName(name));
    }
  }
  return { params, warnings };
}

function shapeOf(name: string, descriptor: ParameterDescriptorDto): Shape {
  if (Object.hasOwn(KNOWN_SHAPES, name)) return KNOWN_SHAPES[name];
  if (descriptor.values) return 'string';
  if (descriptor.min !== undefined || descriptor.max !== undefined) return 'number';
  if (descriptor.max_length !== undefined) return 'string';
  const byDefault: Partial<Record<string, Shape>> = {
    boolean: 'boolean',
    number: 'number',
    string: 'string',
  };
  return byDefault[typeof descriptor.default] ?? 'any';
}

/** What is wrong with one value, as the client is told it; null when nothing is. */
function valueProblem(name: string, descriptor: ParameterDescriptorDto, value: unknown): string | null {
  const shape = shapeOf(name, descriptor);
  switch (shape) {
    case 'string':
      if (typeof value !== 'string') return `${name} must be a string`;
      if (descriptor.required && value.trim() === '') return `${name} must not be empty`;
      if (descriptor.max_length !== undefined && characterCount(value) > descriptor.max_length)
        return `${name} must be at most ${descriptor.max_length} characters`;
      if (descriptor.values && !descriptor.values.includes(value))
        return `${name} must be one of ${descriptor.values.join(', ')}`;
      return null;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${name} must be a number`;
      if (shape === 'integer' && !Number.isInteger(value)) return `${name} must be a whole number`;
      if (descriptor.min !== undefined && value < descriptor.min)
        return `${name} must be at least ${descriptor.min}`;
      if (descriptor.max !== undefined && value > descriptor.max)
        return `${name} must be at most ${descriptor.max}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${name} must be true or false`;
    case 'string-list':
      return Array.isArray(value) &&
        value.length <= MAX_LIST_ITEMS &&
        value.every((item) => typeof item === 'string' && item.length <= MAX_LIST_ITEM_LENGTH)
        ? null
        : `${name} must be a list of at most ${MAX_LIST_ITEMS} URLs`;
    case 'any':
      return typeof value === 'object' ? `${name} must be a string, a number or a boolean` : null;
  }
}
