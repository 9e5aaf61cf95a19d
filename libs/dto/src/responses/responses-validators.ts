import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { isImageUrl } from '../common/image-url';
import { isPlainObject } from '../common/nested-object';

export const RESPONSES_INPUT_ROLES = ['user', 'assistant', 'system', 'developer'] as const;

export type ResponsesInputPart =
  | { type: 'input_text'; text: string }
  | { type: 'output_text'; text: string }
  | { type: 'refusal'; refusal: string }
  | { type: 'input_image'; image_url: string; detail?: string };

export interface ResponsesMessageInput {
  type?: 'message';
  role: (typeof RESPONSES_INPUT_ROLES)[number];
  content: string | ResponsesInputPart[];
}

export interface ResponsesFunctionCallInput {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}

export interface ResponsesFunctionCallOutputInput {
  type: 'function_call_output';
  call_id: string;
  output: string | ResponsesInputPart[];
}

/**
 * A reasoning item of an earlier response, sent back as it was returned: OpenAI's fields, and
 * OpenRouter's `signature` and `format` for reasoning the provider signed.
 */
export interface ResponsesReasoningInput {
  type: 'reasoning';
  id?: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content?: Array<{ type: 'reasoning_text'; text: string }>;
  encrypted_content?: string | null;
  signature?: string | null;
  format?: string;
  status?: string;
}

export type ResponsesInputItem =
  | ResponsesMessageInput
  | ResponsesFunctionCallInput
  | ResponsesFunctionCallOutputInput
  | ResponsesReasoningInput;

const isString = (value: unknown): value is string => typeof value === 'string';

function partProblem(part: unknown, path: string): string | null {
  if (!isPlainObject(part)) return `${path} must be an object`;
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return isString(part.text) ? null : `${path}.text must be a string`;
    case 'refusal':
      return isString(part.refusal) ? null : `${path}.refusal must be a string`;
    case 'input_image':
      return isImageUrl(part.image_url)
        ? null
        : `${path}.image_url must be an http(s) URL or a data: URL (file_id is not supported)`;
    default:
      return `${path}.type must be one of input_text, output_text, refusal, input_image`;
  }
}

function contentProblem(content: unknown, path: string): string | null {
  if (isString(content)) return null;
  if (!Array.isArray(content)) return `${path} must be a string or an array of content parts`;
  for (const [index, part] of content.entries()) {
    const problem = partProblem(part, `${path}[${index}]`);
    if (problem) return problem;
  }
  return null;
}

function itemProblem(item: unknown, path: string): string | null {
  if (!isPlainObject(item)) return `${path} must be an object`;
  const type = item.type ?? 'message';
  if (type === 'message') {
    if (!(RESPONSES_INPUT_ROLES as readonly unknown[]).includes(item.role))
      return `${path}.role must be one of ${RESPONSES_INPUT_ROLES.join(', ')}`;
    return contentProblem(item.content, `${path}.content`);
  }
  if (type === 'function_call') {
    for (const field of ['call_id', 'name', 'arguments'])
      if (!isString(item[field])) return `${path}.${field} must be a string`;
    return null;
  }
  if (type === 'function_call_output') {
    if (!isString(item.call_id)) return `${path}.call_id must be a string`;
    return contentProblem(item.output, `${path}.output`);
  }
  if (type === 'reasoning') return reasoningProblem(item, path);
  return `${path}.type must be one of message, function_call, function_call_output, reasoning`;
}

/** Why the texts of a reasoning item's `summary` or `content` are invalid, or null: parts of one type, each with its text. */
function reasoningPartsProblem(parts: unknown, type: string, path: string): string | null {
  if (!Array.isArray(parts)) return `${path} must be an array`;
  const index = parts.findIndex((part) => !isPlainObject(part) || part.type !== type || !isString(part.text));
  return index === -1 ? null : `${path}[${index}] must be {"type": "${type}", "text": ...}`;
}

function reasoningProblem(item: Record<string, unknown>, path: string): string | null {
  const summary = reasoningPartsProblem(item.summary, 'summary_text', `${path}.summary`);
  if (summary) return summary;
  if (item.content !== undefined && item.content !== null) {
    const content = reasoningPartsProblem(item.content, 'reasoning_text', `${path}.content`);
    if (content) return content;
  }
  for (const field of ['id', 'encrypted_content', 'signature', 'format'])
    if (item[field] !== undefined && item[field] !== null && !isString(item[field]))
      return `${path}.${field} must be a string`;
  return null;
}

/** Why `input` of a Responses request is invalid, or null: a string, or an array of input items. */
export function responsesInputProblem(input: unknown): string | null {
  if (isString(input)) return null;
  if (!Array.isArray(input) || input.length === 0)
    return 'input must be a string or a non-empty array of input items';
  for (const [index, item] of input.entries()) {
    const problem = itemProblem(item, `input[${index}]`);
    if (problem) return problem;
  }
  return null;
}

export function IsResponsesInput(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isResponsesInput',
      target: target.constructor,
      propertyName,
      options: { message: (args) => responsesInputProblem(args.value) ?? 'input is invalid', ...options },
      validator: { validate: (value: unknown) => responsesInputProblem(value) === null },
    });
}

/** `none`, `auto`, `required`, or `{type: 'function', name}`. */
export function IsResponsesToolChoice(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isResponsesToolChoice',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be one of none, auto, required or {"type": "function", "name": ...}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          (isString(value) && ['none', 'auto', 'required'].includes(value)) ||
          (isPlainObject(value) && value.type === 'function' && isString(value.name)),
      },
    });
}

/** The tool names a provider accepts, as for chat completions. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A forced tool must be declared: `required` (or Anthropic's `any`) needs at least one tool, and a
 * named tool must be among `tools`. `nameOf` reads the forced name of this API's tool_choice shape.
 */
export function IsDeclaredTool(
  required: string,
  nameOf: (choice: unknown) => unknown,
  options?: ValidationOptions,
) {
  const problem = (choice: unknown, body: object): string | null => {
    const tools = (body as { tools?: Array<{ name?: unknown }> }).tools;
    const names = Array.isArray(tools) ? tools.map((tool) => tool?.name) : [];
    const forced = typeof choice === 'string' ? choice : isPlainObject(choice) ? choice.type : undefined;
    if (forced === required && names.length === 0)
      return `tool_choice ${required} needs at least one tool in tools`;
    const named = nameOf(choice);
    if (named !== undefined && !names.includes(named))
      return `tool_choice names the tool ${typeof named === 'string' ? named : JSON.stringify(named)}, which is not declared in tools`;
    return null;
  };
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isDeclaredTool',
      target: target.constructor,
      propertyName,
      options: {
        message: (args) => problem(args.value, args.object) ?? `${propertyName} is invalid`,
        ...options,
      },
      validator: {
        validate: (value: unknown, args: ValidationArguments) => problem(value, args.object) === null,
      },
    });
}
