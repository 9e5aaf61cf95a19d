import { registerDecorator, type ValidationOptions } from 'class-validator';
import type { SchemaObject } from '@nestjs/swagger';
import { REASONING_DETAIL_TYPES } from '@gw/contracts';
import { isPlainObject } from '../common/nested-object';

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptionalString = (value: unknown) => value === undefined || value === null || isString(value);

/** The field each type must carry as a string. */
const REQUIRED_FIELD: Record<(typeof REASONING_DETAIL_TYPES)[number], string | null> = {
  'reasoning.text': null,
  'reasoning.encrypted': 'data',
  'reasoning.summary': 'summary',
};

function detailProblem(detail: unknown, path: string): string | null {
  if (!isPlainObject(detail)) return `${path} must be an object`;
  if (!(REASONING_DETAIL_TYPES as readonly unknown[]).includes(detail.type))
    return `${path}.type must be one of ${REASONING_DETAIL_TYPES.join(', ')}`;
  const required = REQUIRED_FIELD[detail.type as (typeof REASONING_DETAIL_TYPES)[number]];
  if (required && !isString(detail[required])) return `${path}.${required} must be a string`;
  for (const field of ['text', 'signature', 'id', 'format'])
    if (!isOptionalString(detail[field])) return `${path}.${field} must be a string`;
  const index = detail.index;
  if (index !== undefined && !(Number.isSafeInteger(index) && (index as number) >= 0))
    return `${path}.index must be a non-negative integer`;
  return null;
}

/** Why `reasoning_details` is invalid, or null: an array of OpenRouter's reasoning items. */
export function reasoningDetailsProblem(value: unknown, path: string): string | null {
  if (!Array.isArray(value)) return `${path} must be an array`;
  for (const [index, detail] of value.entries()) {
    const problem = detailProblem(detail, `${path}[${index}]`);
    if (problem) return problem;
  }
  return null;
}

export function IsReasoningDetails(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isReasoningDetails',
      target: target.constructor,
      propertyName,
      options: {
        message: (args) => reasoningDetailsProblem(args.value, propertyName) ?? `${propertyName} is invalid`,
        ...options,
      },
      validator: { validate: (value: unknown) => reasoningDetailsProblem(value, propertyName) === null },
    });
}

export const REASONING_DETAIL_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: [...REASONING_DETAIL_TYPES] },
    text: { type: 'string', description: 'reasoning.text: the reasoning' },
    signature: { type: 'string', nullable: true, description: 'reasoning.text: the provider’s signature' },
    data: { type: 'string', description: 'reasoning.encrypted: the reasoning the provider hid' },
    summary: { type: 'string', description: 'reasoning.summary: a summary of the reasoning' },
    id: { type: 'string', nullable: true },
    format: { type: 'string', example: 'anthropic-claude-v1' },
    index: { type: 'integer', minimum: 0 },
  },
};
