import { parseSize } from './media-prompt';

/** `POST /images/generations` as OpenAI's Images API takes it. */
export interface OpenAiImageRequest {
  model?: unknown;
  prompt?: unknown;
  n?: unknown;
  size?: unknown;
  quality?: unknown;
  style?: unknown;
  response_format?: unknown;
  output_format?: unknown;
  background?: unknown;
  output_compression?: unknown;
  user?: unknown;
}

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface ImageRequest {
  model: string;
  prompt: string;
  /** The older style-capable family (dall-e-3's answers: `url` by default, `revised_prompt`, n = 1). */
  classic: boolean;
  n: number;
  width: number;
  height: number;
  quality: string;
  responseFormat: 'url' | 'b64_json';
  outputFormat: ImageFormat;
  transparent: boolean;
}

const AUTO_SIZE = '1024x1024';
const CLASSIC_QUALITIES = ['standard', 'hd'];
const NEWER_QUALITIES = ['auto', 'low', 'medium', 'high'];

/**
 * Reads and checks the request as OpenAI does; a string is the 400's message. A model whose name
 * has `classic` or `dall-e` in it answers as dall-e-3, any other as the GPT image models.
 */
export function readImageRequest(body: OpenAiImageRequest): ImageRequest | string {
  const { model, prompt } = body;
  if (typeof model !== 'string' || typeof prompt !== 'string' || prompt.trim() === '') {
    return 'model and prompt are required';
  }
  const classic = /classic|dall-e/.test(model);
  const n = body.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > (classic ? 1 : 10)) {
    return classic ? 'n must be 1 for this model' : 'n must be an integer from 1 to 10';
  }
  const sizeText = body.size === undefined || body.size === 'auto' ? AUTO_SIZE : body.size;
  const size = typeof sizeText === 'string' ? parseSize(sizeText) : null;
  if (!size) return 'size must be auto or WIDTHxHEIGHT, even sides of 16 to 4096';
  const qualities = classic ? CLASSIC_QUALITIES : NEWER_QUALITIES;
  const quality = body.quality ?? qualities[0];
  if (typeof quality !== 'string' || !qualities.includes(quality)) {
    return `quality must be one of ${qualities.join(', ')}`;
  }
  const responseFormat = body.response_format ?? (classic ? 'url' : 'b64_json');
  if (responseFormat !== 'url' && responseFormat !== 'b64_json')
    return 'response_format must be url or b64_json';
  const outputFormat = body.output_format ?? 'png';
  if (outputFormat !== 'png' && outputFormat !== 'jpeg' && outputFormat !== 'webp') {
    return 'output_format must be png, jpeg or webp';
  }
  const background = body.background ?? 'auto';
  if (background !== 'transparent' && background !== 'opaque' && background !== 'auto') {
    return 'background must be transparent, opaque or auto';
  }
  if (background === 'transparent' && outputFormat === 'jpeg') {
    return 'A transparent background needs output_format png or webp';
  }
  const compression = body.output_compression;
  if (
    compression !== undefined &&
    (typeof compression !== 'number' || compression < 0 || compression > 100)
  ) {
    return 'output_compression must be from 0 to 100';
  }
  if (body.style !== undefined && body.style !== 'vivid' && body.style !== 'natural') {
    return 'style must be vivid or natural';
  }
  if (body.user !== undefined && typeof body.user !== 'string') return 'user must be a string';
  return {
    model,
    prompt,
    classic,
    n,
    ...size,
    quality,
    responseFormat,
    outputFormat,
    transparent: background === 'transparent',
  };
}

/**
 * Output tokens of one image, as the GPT image models count them: 272, 1056 or 4160 for a low,
 * medium (also `auto`) or high quality 1024×1024 image, in proportion to the area.
 */
export function imageOutputTokens(quality: string, width: number, height: number): number {
  const perMegapixelSquare: Record<string, number> = { low: 272, medium: 1056, auto: 1056, high: 4160 };
  return Math.round(((perMegapixelSquare[quality] ?? 1056) * width * height) / (1024 * 1024));
}
