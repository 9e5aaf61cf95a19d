import { MsbFirstBits } from './bit-writers';
import type { SolidImage } from './solid-image';

/** Annex K's luminance DC table: code lengths 1..16 and the categories they code. */
const DC_CODE_LENGTHS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_CATEGORIES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/** A solid image has no AC energy, so the AC table needs one symbol only: end of block, code `0`. */
const AC_CODE_LENGTHS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const END_OF_BLOCK = 0x00;

/**
 * A baseline JFIF JPEG, 4:4:4, every quantiser 1. A block of one colour has only its DC
 * coefficient (8 × (sample − 128)), so each block is a DC difference and an end of block: exact
 * colours, a few bits per 8×8 block.
 */
export function encodeJpeg(image: SolidImage): Buffer {
  const { width, height } = image;
  const components = yCbCr(image);
  const dcCodes = canonicalCodes(DC_CODE_LENGTHS, DC_CATEGORIES);
  const bits = new MsbFirstBits();
  const previousDc = [0, 0, 0];
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  for (let block = 0; block < blocks; block++) {
    components.forEach((sample, component) => {
      const dc = 8 * (sample - 128);
      writeDcDifference(bits, dcCodes, dc - previousDc[component]);
      previousDc[component] = dc;
      bits.write(0, 1); // the end-of-block code
    });
  }
  const entropyCoded = stuffBytes(bits.align(1).toBuffer());
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, [...Buffer.from('JFIF\0', 'ascii'), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [
      8,
      height >> 8,
      height & 0xff,
      width >> 8,
      width & 0xff,
      3,
      1,
      0x11,
      0,
      2,
      0x11,
      0,
      3,
      0x11,
      0,
    ]),
    segment(0xc4, [0x00, ...DC_CODE_LENGTHS, ...DC_CATEGORIES]),
    segment(0xc4, [0x10, ...AC_CODE_LENGTHS, END_OF_BLOCK]),
    segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    entropyCoded,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** JFIF's full-range BT.601 conversion. */
function yCbCr({ red, green, blue }: SolidImage): number[] {
  const clamp = (value: number) => Math.min(255, Math.max(0, Math.round(value)));
  return [
    clamp(0.299 * red + 0.587 * green + 0.114 * blue),
    clamp(128 - 0.168736 * red - 0.331264 * green + 0.5 * blue),
    clamp(128 + 0.5 * red - 0.418688 * green - 0.081312 * blue),
  ];
}

function writeDcDifference(bits: MsbFirstBits, codes: Map<number, HuffmanCode>, difference: number): void {
  const category = difference === 0 ? 0 : Math.floor(Math.log2(Math.abs(difference))) + 1;
  const code = codes.get(category);
  if (!code) throw new Error(`no DC code for category ${category}`);
  bits.write(code.bits, code.length);
  if (category > 0) bits.write(difference > 0 ? difference : difference + (1 << category) - 1, category);
}

interface HuffmanCode {
  bits: number;
  length: number;
}

/** JPEG's canonical Huffman codes (Annex C) from the count of codes of each length. */
function canonicalCodes(lengths: number[], symbols: number[]): Map<number, HuffmanCode> {
  const codes = new Map<number, HuffmanCode>();
  let code = 0;
  let next = 0;
  lengths.forEach((count, index) => {
    for (let i = 0; i < count; i++) codes.set(symbols[next++], { bits: code++, length: index + 1 });
    code <<= 1;
  });
  return codes;
}

function segment(marker: number, payload: number[]): Buffer {
  const length = payload.length + 2;
  return Buffer.from([0xff, marker, length >> 8, length & 0xff, ...payload]);
}

/** A 0xFF byte in entropy-coded data is followed by 0x00, so it cannot be read as a marker. */
function stuffBytes(data: Buffer): Buffer {
  const stuffed: number[] = [];
  for (const byte of data) {
    stuffed.push(byte);
    if (byte === 0xff) stuffed.push(0x00);
  }
  return Buffer.from(stuffed);
}
