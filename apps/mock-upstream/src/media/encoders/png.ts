import { crc32, deflateSync } from 'node:zlib';
import type { SolidImage } from './solid-image';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const COLOUR_TYPE_RGB = 2;
const COLOUR_TYPE_RGBA = 6;
const FILTER_NONE = 0;

/** An 8-bit truecolour PNG (RGBA when the image is not opaque). */
export function encodePng(image: SolidImage): Buffer {
  const withAlpha = image.alpha < 255;
  const pixel = withAlpha
    ? [image.red, image.green, image.blue, image.alpha]
    : [image.red, image.green, image.blue];
  const row = Buffer.alloc(1 + image.width * pixel.length);
  row[0] = FILTER_NONE;
  row.fill(Buffer.from(pixel), 1);
  const scanlines = Buffer.alloc(row.length * image.height).fill(row);

  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(withAlpha ? COLOUR_TYPE_RGBA : COLOUR_TYPE_RGB, 9);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
