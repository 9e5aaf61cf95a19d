import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { isHttpUrl } from '../common/image-url';
import { isPlainObject } from '../common/nested-object';

export type MessagesImageSource =
  { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
export type MessagesTextBlock = { type: 'text'; text: string };
export type MessagesImageBlock = { type: 'image'; source: MessagesImageSource };
export type MessagesToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
};
export type MessagesToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<MessagesTextBlock | MessagesImageBlock>;
  is_error?: boolean;
};
/** Earlier thinking of an assistant turn, sent back as Anthropic returned it: the provider checks its signature. */
export type MessagesThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type MessagesRedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
export type MessagesInputBlock =
  | MessagesTextBlock
  | MessagesImageBlock
  | MessagesToolUseBlock
  | MessagesToolResultBlock
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock;

type Loose = Record<string, unknown>;
const isString = (value: unknown): value is string => typeof value === 'string';

function imageProblem(block: Loose, path: string): string | null {
  const source = block.source;
  if (!isPlainObject(source)) return `${path}.source must be an object`;
  if (source.type === 'base64')
    return isString(source.media_type) && isString(source.data)
      ? null
      : `${path}.source needs media_type and data`;
  if (source.type === 'url')
    return isHttpUrl(source.url) ? null : `${path}.source.url must be an http(s) URL`;
  return `${path}.source.type must be base64 or url`;
}

function blockProblem(block: unknown, path: string, role: unknown, nested: boolean): string | null {
  if (!isPlainObject(block)) return `${path} must be an object`;
  switch (block.type) {
    case 'text':
      if (!isString(block.text)) return `${path}.text must be a string`;
      return block.text === '' ? `${path}.text must not be empty` : null;
    case 'image':
      return imageProblem(block, path);
    case 'tool_use':
      if (nested || role !== 'assistant') return `${path}: tool_use blocks belong to assistant messages`;
      if (!isString(block.id) || !isString(block.name)) return `${path} needs id and name`;
      return isPlainObject(block.input) ? null : `${path}.input must be an object`;
    case 'tool_result':
      if (nested || role !== 'user') return `${path}: tool_result blocks belong to user messages`;
      if (!isString(block.tool_use_id)) return `${path}.tool_use_id must be a string`;
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean')
        return `${path}.is_error must be a boolean`;
      return block.content === undefined
        ? null
        : contentProblem(block.content, `${path}.content`, role, true);
    case 'thinking':
      if (nested || role !== 'assistant') return `${path}: thinking blocks belong to assistant messages`;
      if (!isString(block.thinking)) return `${path}.thinking must be a string`;
      return isString(block.signature) ? null : `${path}.signature must be a string`;
    case 'redacted_thinking':
      if (nested || role !== 'assistant') return `${path}: thinking blocks belong to assistant messages`;
      return isString(block.data) ? null : `${path}.data must be a string`;
    default:
      return `${path}.type must be one of text, image, tool_use, tool_result, thinking, redacted_thinking`;
  }
}

/**
 * Anthropic refuses empty text: a user message and every text block say something. An assistant's
 * string may be empty, as Anthropic allows of the final (prefilled) turn; a tool result may be empty.
 */
function contentProblem(content: unknown, path: string, role: unknown, nested = false): string | null {
  if (isString(content))
    return content === '' && !nested && role === 'user' ? `${path} must not be empty` : null;
  if (!Array.isArray(content)) return `${path} must be a string or an array of content blocks`;
  if (content.length === 0 && !nested) return `${path} must not be empty`;
  for (const [index, block] of content.entries()) {
    const problem = blockProblem(block, `${path}[${index}]`, role, nested);
    if (problem) return problem;
  }
  return null;
}

/** Why a message's content is invalid for its role, or null. */
export function messagesContentProblem(content: unknown, role: unknown, path = 'content'): string | null {
  return contentProblem(content, path, role);
}

/** Why `system` is invalid, or null: a string or an array of text blocks. */
export function messagesSystemProblem(system: unknown): string | null {
  if (isString(system)) return null;
  if (!Array.isArray(system)) return 'system must be a string or an array of text blocks';
  const index = system.findIndex(
    (block) => !isPlainObject(block) || block.type !== 'text' || !isString(block.text),
  );
  return index === -1 ? null : `system[${index}] must be a text block`;
}

export function IsMessagesContent(options?: ValidationOptions) {
  const problem = (args: ValidationArguments) =>
    messagesContentProblem(args.value, (args.object as { role?: unknown }).role, args.property);
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isMessagesContent',
      target: target.constructor,
      propertyName,
      options: { message: (args) => problem(args) ?? `${propertyName} is invalid`, ...options },
      validator: { validate: (_value: unknown, args: ValidationArguments) => problem(args) === null },
    });
}

export function IsMessagesSystem(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isMessagesSystem',
      target: target.constructor,
      propertyName,
      options: {
        message: (args) => messagesSystemProblem(args.value) ?? `${propertyName} is invalid`,
        ...options,
      },
      validator: { validate: (value: unknown) => messagesSystemProblem(value) === null },
    });
}
