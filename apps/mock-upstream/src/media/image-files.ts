import { encodeJpeg } from './encoders/jpeg';
import { encodePng } from './encoders/png';
import type { SolidImage } from './encoders/solid-image';
import { encodeWebp } from './encoders/webp';
import type { ImageFormat } from './mock-image-request';
import { parseSize } from './media-prompt';

export const IMAGE_CONTENT_TYPES: Record<ImageFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

const ENCODERS: Record<ImageFormat, (image: SolidImage) => Buffer> = {
  png: encodePng,
  jpeg: encodeJpeg,
  webp: encodeWebp,
};

export function encodeImage(image: SolidImage, format: ImageFormat): Buffer {
  return ENCODERS[format](image);
}

/**
 * An image url names everything its bytes are made from (`1024x1024/c81e5aff.png`: size, colour
 * and alpha, format), so the file route re-encodes them and the mock keeps no image in memory.
 */
export function imageFilePath(image: SolidImage, format: ImageFormat): string {
  const hex = [image.red, image.green, image.blue, image.alpha]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  return `${image.width}x${image.height}/${hex}.${format}`;
}

export function readImageFilePath(
  size: string,
  file: string,
): { image: SolidImage; format: ImageFormat } | null {
  const dimensions = parseSize(size);
  const match = /^([0-9a-f]{8})\.(png|jpeg|webp)$/.exec(file);
  if (!dimensions || !match) return null;
  const [red, green, blue, alpha] = Buffer.from(match[1], 'hex');
  return { image: { ...dimensions, red, green, blue, alpha }, format: match[2] as ImageFormat };
}
