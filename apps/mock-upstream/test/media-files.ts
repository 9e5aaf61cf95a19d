import { crc32, inflateSync } from 'node:zlib';

/**
 * Readers of the files the mock makes, written from the formats' specifications so a test checks
 * the bytes against the format rather than against the encoder that wrote them.
 */

export interface PngContents {
  width: number;
  height: number;
  channels: number;
  /** The first pixel's samples. */
  firstPixel: number[];
}

/** Checks every chunk's CRC, inflates the image data and checks its length against the header. */
export function readPng(file: Buffer): PngContents {
  expect(file.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: Array<{ type: string; data: Buffer }> = [];
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    const typed = file.subarray(at + 4, at + 8 + length);
    expect(file.readUInt32BE(at + 8 + length)).toBe(crc32(typed));
    chunks.push({ type: typed.subarray(0, 4).toString('ascii'), data: typed.subarray(4) });
    at += 12 + length;
  }
  expect(chunks[0].type).toBe('IHDR');
  expect(chunks.at(-1)?.type).toBe('IEND');
  const header = chunks[0].data;
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  expect(header[8]).toBe(8);
  const channels = ({ 2: 3, 6: 4 } as Record<number, number>)[header[9]];
  const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  expect(pixels.length).toBe(height * (1 + width * channels));
  expect(pixels[0]).toBe(0);
  return { width, height, channels, firstPixel: [...pixels.subarray(1, 1 + channels)] };
}

/** A baseline JPEG's frame size, read by walking its segments to the scan. */
export function readJpegSize(file: Buffer): { width: number; height: number } {
  expect(file.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  expect(file.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
  for (let at = 2; at < file.length;) {
    expect(file[at]).toBe(0xff);
    const marker = file[at + 1];
    if (marker === 0xc0) return { height: file.readUInt16BE(at + 5), width: file.readUInt16BE(at + 7) };
    expect(marker).not.toBe(0xda);
    at += 2 + file.readUInt16BE(at + 2);
  }
  throw new Error('no SOF0 segment');
}

/** A lossless WebP's size and alpha flag, after checking the RIFF lengths. */
export function readWebp(file: Buffer): { width: number; height: number; alpha: boolean } {
  expect(file.toString('ascii', 0, 4)).toBe('RIFF');
  expect(file.readUInt32LE(4)).toBe(file.length - 8);
  expect(file.toString('ascii', 8, 16)).toBe('WEBPVP8L');
  expect(file.readUInt32LE(16)).toBeLessThanOrEqual(file.length - 20);
  expect(file[20]).toBe(0x2f);
  const bits = file.readUInt32LE(21);
  return {
    width: (bits & 0x3fff) + 1,
    height: ((bits >>> 14) & 0x3fff) + 1,
    alpha: ((bits >>> 28) & 1) === 1,
  };
}

/** A PCM WAV's format and length, after checking the RIFF and data lengths against the file's. */
export function readWav(file: Buffer): {
  sampleRate: number;
  channels: number;
  bits: number;
  durationMs: number;
} {
  expect(file.toString('ascii', 0, 4)).toBe('RIFF');
  expect(file.readUInt32LE(4)).toBe(file.length - 8);
  expect(file.toString('ascii', 8, 16)).toBe('WAVEfmt ');
  expect(file.readUInt16LE(20)).toBe(1);
  const [channels, sampleRate, byteRate, blockAlign, bits] = [
    file.readUInt16LE(22),
    file.readUInt32LE(24),
    file.readUInt32LE(28),
    file.readUInt16LE(32),
    file.readUInt16LE(34),
  ];
  expect(blockAlign).toBe((channels * bits) / 8);
  expect(byteRate).toBe(sampleRate * blockAlign);
  expect(file.toString('ascii', 36, 40)).toBe('data');
  expect(file.readUInt32LE(40)).toBe(file.length - 44);
  return { sampleRate, channels, bits, durationMs: ((file.length - 44) / byteRate) * 1000 };
}

const MP3_BITRATES_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_SAMPLE_RATES = [44_100, 48_000, 32_000];

/** Walks MPEG-1 Layer III frames from the first byte to the last; their count and total length. */
export function readMp3(file: Buffer): { frames: number; durationMs: number } {
  let frames = 0;
  let durationMs = 0;
  for (let at = 0; at < file.length; frames++) {
    expect(file[at]).toBe(0xff);
    expect(file[at + 1] & 0xfe).toBe(0xfa); // sync, MPEG-1, Layer III
    const bitrate = MP3_BITRATES_KBPS[file[at + 2] >> 4] * 1000;
    const sampleRate = MP3_SAMPLE_RATES[(file[at + 2] >> 2) & 0b11];
    const padding = (file[at + 2] >> 1) & 1;
    at += Math.floor((144 * bitrate) / sampleRate) + padding;
    durationMs += (1152 / sampleRate) * 1000;
  }
  return { frames, durationMs };
}

/** Walks Ogg pages (RFC 3533): Opus headers first, the last page ends the stream; its length. */
export function readOggOpus(file: Buffer): { pages: number; durationMs: number } {
  const packetsOf: Buffer[] = [];
  let pages = 0;
  let granule = 0n;
  let flags = 0;
  for (let at = 0; at < file.length; pages++) {
    expect(file.toString('ascii', at, at + 4)).toBe('OggS');
    flags = file[at + 5];
    granule = file.readBigUInt64LE(at + 6);
    const segments = [...file.subarray(at + 27, at + 27 + file[at + 26])];
    let data = at + 27 + segments.length;
    for (const length of segments) {
      packetsOf.push(file.subarray(data, data + length));
      data += length;
    }
    at = data;
  }
  expect(packetsOf[0].toString('ascii', 0, 8)).toBe('OpusHead');
  expect(packetsOf[1].toString('ascii', 0, 8)).toBe('OpusTags');
  expect(flags & 0x04).toBe(0x04);
  return { pages, durationMs: Number(granule) / 48 };
}

export interface Mp4Box {
  type: string;
  body: Buffer;
}

/** The boxes of an ISO BMFF byte range, each length checked to fit it exactly. */
export function readBoxes(data: Buffer): Mp4Box[] {
  const boxes: Mp4Box[] = [];
  for (let at = 0; at < data.length;) {
    const size = data.readUInt32BE(at);
    expect(size).toBeGreaterThanOrEqual(8);
    expect(at + size).toBeLessThanOrEqual(data.length);
    boxes.push({ type: data.toString('ascii', at + 4, at + 8), body: data.subarray(at + 8, at + size) });
    at += size;
  }
  return boxes;
}

function child(boxes: Mp4Box[], type: string): Mp4Box {
  const found = boxes.find((box) => box.type === type);
  if (!found) throw new Error(`no ${type} box`);
  return found;
}

export interface Mp4Contents {
  brand: string;
  durationMs: number;
  width: number;
  height: number;
  samples: number;
  codec: string;
}

/** An MP4's brand, movie duration, the video track's size, sample count and codec, and mdat's fit. */
export function readMp4(file: Buffer): Mp4Contents {
  const top = readBoxes(file);
  expect(top.map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat']);
  const moov = readBoxes(top[1].body);
  const mvhd = child(moov, 'mvhd').body;
  const trak = readBoxes(child(moov, 'trak').body);
  const tkhd = child(trak, 'tkhd').body;
  const stbl = readBoxes(
    child(readBoxes(child(readBoxes(child(trak, 'mdia').body), 'minf').body), 'stbl').body,
  );
  const stsz = child(stbl, 'stsz').body;
  const samples = stsz.readUInt32BE(8);
  let sampleBytes = 0;
  for (let i = 0; i < samples; i++) sampleBytes += stsz.readUInt32BE(12 + 4 * i);
  expect(top[2].body.length).toBe(sampleBytes);
  const chunkOffset = child(stbl, 'stco').body.readUInt32BE(8);
  expect(chunkOffset).toBe(file.length - top[2].body.length);
  return {
    brand: top[0].body.toString('ascii', 0, 4),
    durationMs: (mvhd.readUInt32BE(16) / mvhd.readUInt32BE(12)) * 1000,
    width: tkhd.readUInt32BE(76) >>> 16,
    height: tkhd.readUInt32BE(80) >>> 16,
    samples,
    codec: child(stbl, 'stsd').body.toString('ascii', 12, 16),
  };
}
