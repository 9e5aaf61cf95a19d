import { invalidAudio, type StatedLength } from './stated-length';

const ID = {
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  cluster: 0x1f43b675,
  clusterTimecode: 0xe7,
  blockGroup: 0xa0,
  block: 0xa1,
  simpleBlock: 0xa3,
};
/** Masters whose children are read where they stand; their size may be unknown (a recording written live). */
const ENTERED = new Set([ID.segment, ID.info, ID.cluster, ID.blockGroup]);
/** Matroska's default: timestamps count milliseconds. */
const DEFAULT_TIMECODE_SCALE_NS = 1_000_000;

interface ElementHeader {
  id: number;
  /** Null: unknown size. */
  size: number | null;
  dataStart: number;
}

/** An EBML variable-length integer's length in bytes (1–8) from its first byte; 0 for a byte that starts none. */
function vintLength(first: number): number {
  for (let length = 1; length <= 8; length++) if (first & (0x100 >> length)) return length;
  return 0;
}

function elementHeader(bytes: Buffer, offset: number): ElementHeader | null {
  const idLength = offset < bytes.length ? vintLength(bytes[offset]) : 0;
  if (idLength === 0 || idLength > 4 || offset + idLength >= bytes.length) return null;
  const sizeLength = vintLength(bytes[offset + idLength]);
  if (sizeLength === 0 || offset + idLength + sizeLength > bytes.length) return null;
  // The ID keeps its length marker; the size drops it, and all ones means unknown.
  const id = bytes.readUIntBE(offset, idLength);
  let size = bytes[offset + idLength] & (0xff >> sizeLength);
  let allOnes = size === 0xff >> sizeLength;
  for (let i = 1; i < sizeLength; i++) {
    const byte = bytes[offset + idLength + i];
    size = size * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { id, size: allOnes ? null : size, dataStart: offset + idLength + sizeLength };
}

function unsigned(bytes: Buffer, start: number, length: number): number {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + bytes[start + i];
  return value;
}

/**
 * A WebM (Matroska) file's length by its blocks: the latest block timestamp (cluster timestamp plus
 * the block's own offset) in the segment's timestamp scale. The `Duration` field is not read: browser
 * recordings leave it out, and the blocks are what a decoder plays. Timestamps are the sender's
 * word, so the length is not exact and audioLength bounds it by the bytes; null without a block.
 */
export function webmLength(bytes: Buffer): StatedLength | null {
  let scale = DEFAULT_TIMECODE_SCALE_NS;
  let clusterTime = 0;
  let latest: number | null = null;
  for (let offset = 0; offset < bytes.length;) {
    const element = elementHeader(bytes, offset);
    if (!element) break;
    if (ENTERED.has(element.id)) {
      offset = element.dataStart;
      continue;
    }
    // An element that cannot be stepped over, or is cut short, ends what can be read.
    if (element.size === null || element.dataStart + element.size > bytes.length) break;
    const { dataStart, size } = element;
    if (element.id === ID.timecodeScale) {
      scale = unsigned(bytes, dataStart, size);
      if (scale === 0) throw invalidAudio('The WebM file states a timestamp scale of 0');
    } else if (element.id === ID.clusterTimecode) {
      clusterTime = unsigned(bytes, dataStart, size);
    } else if (element.id === ID.simpleBlock || element.id === ID.block) {
      // The track number (a variable-length integer), then the timestamp relative to the cluster (signed 16 bits).
      const track = size > 0 ? vintLength(bytes[dataStart]) : 0;
      if (track > 0 && track + 2 <= size) {
        const time = clusterTime + bytes.readInt16BE(dataStart + track);
        latest = latest === null ? time : Math.max(latest, time);
      }
    }
    offset = dataStart + size;
  }
  return latest === null ? null : { seconds: (Math.max(0, latest) * scale) / 1e9, exact: false };
}
