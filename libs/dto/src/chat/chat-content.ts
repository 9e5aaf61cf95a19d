import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isImageUrl } from '../common/image-url';
import { isPlainObject } from '../common/nested-object';

export const IMAGE_DETAILS = ['auto', 'low', 'high'] as const;
export type ChatTextPart = { type: 'text'; text: string };
export type ChatImagePart = {
  type: 'image_url';
  image_url: { url: string; detail?: (typeof IMAGE_DETAILS)[number] };
};
export type ChatContentPart = ChatTextPart | ChatImagePart;

const hasOnlyKeys = (object: Record<string, unknown>, keys: string[]) =>
  Object.keys(object).every((key) => keys.includes(key));

/** Why a content part is invalid, or null: exactly `{type: text, text}` or `{type: image_url, image_url: {url, detail?}}`. */
function contentPartProblem(part: unknown, path: string): string | null {
  if (!isPlainObject(part)) return `${path} must be an object`;
  if (part.type === 'text') {
    if (typeof part.text !== 'string') return `${path}.text must be a string`;
    return hasOnlyKeys(part, ['type', 'text']) ? null : `${path} must have only the fields type and text`;
  }
  if (part.type === 'image_url') {
    const image = part.image_url;
    if (!isPlainObject(image)) return `${path}.image_url must be an object`;
    if (!isImageUrl(image.url)) return `${path}.image_url.url must be an http(s) URL or a data: URL`;
    if (image.detail !== undefined && !(IMAGE_DETAILS as readonly unknown[]).includes(image.detail))
      return `${path}.image_url.detail must be one of ${IMAGE_DETAILS.join(', ')}`;
    if (!hasOnlyKeys(image, ['url', 'detail']))
      return `${path}.image_url must have only the fields url and detail`;
    return hasOnlyKeys(part, ['type', 'image_url'])
      ? null
      : `${path} must have only the fields type and image_url`;
  }
  return `${path}.type must be one of text, image_url`;
}

/** Why message content is invalid, or null: a string, null, or a non-empty array of content parts. */
function chatContentProblem(content: unknown, path: string): string | null {
  if (content === null || typeof content === 'string') return null;
  if (!Array.isArray(content) || content.length === 0)
    return `${path} must be a string, a non-empty array of content parts or null`;
  for (const [index, part] of content.entries()) {
    const problem = contentPartProblem(part, `${path}[${index}]`);
    if (problem) return problem;
  }
  return null;
}

/** Message content; a message names the faulty part by its path (`content[0].type ...`), which becomes the error's param. */
export function IsChatContent(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isChatContent',
      target: target.constructor,
      propertyName,
      options: {
        message: (args) => chatContentProblem(args.value, propertyName) ?? `${propertyName} is invalid`,
        ...options,
      },
      validator: { validate: (value: unknown) => chatContentProblem(value, propertyName) === null },
    });
}
