import { LsbFirstBits } from './bit-writers';
import type { SolidImage } from './solid-image';

const VP8L_SIGNATURE = 0x2f;

/**
 * A lossless WebP (VP8L). Each of the five prefix codes is a "simple code" of a single symbol,
 * which the decoder reads in zero bits, so every pixel is the one colour and the pixel data is
 * empty: a valid file of a few dozen bytes at any size up to 16384 × 16384.
 */
export function encodeWebp(image: SolidImage): Buffer {
  const bits = new LsbFirstBits()
    .write(VP8L_SIGNATURE, 8)
    .write(image.width - 1, 14)
    .write(image.height - 1, 14)
    .write(image.alpha < 255 ? 1 : 0, 1)
    .write(0, 3) // version
    .write(0, 1) // no transform
    .write(0, 1) // no colour cache
    .write(0, 1); // one prefix-code group for the whole image
  for (const symbol of [image.green, image.red, image.blue, image.alpha]) singleSymbolCode(bits, symbol);
  singleSymbolCode(bits, 0); // distance, never used
  const vp8l = bits.toBuffer();
  const padded = vp8l.length % 2 === 0 ? vp8l : Buffer.concat([vp8l, Buffer.alloc(1)]);
  const header = Buffer.alloc(20);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(12 + padded.length, 4);
  header.write('WEBPVP8L', 8, 'ascii');
  header.writeUInt32LE(vp8l.length, 16);
  return Buffer.concat([header, padded]);
}

function singleSymbolCode(bits: LsbFirstBits, symbol: number): void {
  const wide = symbol > 1;
  bits
    .write(1, 1)
    .write(0, 1)
    .write(wide ? 1 : 0, 1)
    .write(symbol, wide ? 8 : 1);
}
