import { encodeH264 } from './h264';
import type { Rgb } from './solid-image';

export const MP4_FRAMES_PER_SECOND = 24;
const MEDIA_TIMESCALE = MP4_FRAMES_PER_SECOND * 512;
const MOVIE_TIMESCALE = 1000;
const UNITY_MATRIX = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];

/**
 * A progressive MP4 (`moov` before `mdat`) with one H.264 track of one colour: 24 frames a
 * second for `seconds`, the first a key frame. A few kilobytes even at 4K.
 */
export function encodeMp4(width: number, height: number, seconds: number, colour: Rgb): Buffer {
  const frameCount = Math.max(1, Math.round(seconds * MP4_FRAMES_PER_SECOND));
  const { sps, pps, frames } = encodeH264(width, height, frameCount, colour);
  const samples = frames.map((nal) => Buffer.concat([u32(nal.length), nal]));
  const durationMs = Math.round((frameCount * 1000) / MP4_FRAMES_PER_SECOND);
  const fileType = box('ftyp', Buffer.from('isom'), u32(512), Buffer.from('isomiso2avc1mp41'));
  const movieFor = (mdatOffset: number) =>
    box(
      'moov',
      fullBox(
        'mvhd',
        0,
        0,
        ...[0, 0, MOVIE_TIMESCALE, durationMs].map(u32),
        u32(0x10000),
        u16(0x100),
        zeros(10),
        ...UNITY_MATRIX.map(u32),
        zeros(24),
        u32(2),
      ),
      box(
        'trak',
        trackHeader(width, height, durationMs),
        media(width, height, sps, pps, samples, frameCount, mdatOffset),
      ),
    );
  // The chunk offset is a fixed-width field, so the movie box has the same length whatever it says.
  const mdatOffset = fileType.length + movieFor(0).length + 8;
  return Buffer.concat([fileType, movieFor(mdatOffset), box('mdat', ...samples)]);
}

function trackHeader(width: number, height: number, durationMs: number): Buffer {
  const enabledInMovie = 0x3;
  return fullBox(
    'tkhd',
    0,
    enabledInMovie,
    ...[0, 0, 1, 0, durationMs].map(u32),
    zeros(8),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    ...UNITY_MATRIX.map(u32),
    u32(width << 16),
    u32(height << 16),
  );
}

function media(
  width: number,
  height: number,
  sps: Buffer,
  pps: Buffer,
  samples: Buffer[],
  frameCount: number,
  mdatOffset: number,
): Buffer {
  const frameTicks = MEDIA_TIMESCALE / MP4_FRAMES_PER_SECOND;
  const undeterminedLanguage = 0x55c4;
  const sampleTable = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), sampleEntry(width, height, sps, pps)),
    fullBox('stts', 0, 0, u32(1), u32(frameCount), u32(frameTicks)),
    fullBox('stss', 0, 0, u32(1), u32(1)),
    fullBox('stsc', 0, 0, u32(1), u32(1), u32(frameCount), u32(1)),
    fullBox('stsz', 0, 0, u32(0), u32(frameCount), ...samples.map((sample) => u32(sample.length))),
    fullBox('stco', 0, 0, u32(1), u32(mdatOffset)),
  );
  return box(
    'mdia',
    fullBox(
      'mdhd',
      0,
      0,
      u32(0),
      u32(0),
      u32(MEDIA_TIMESCALE),
      u32(frameCount * frameTicks),
      u16(undeterminedLanguage),
      u16(0),
    ),
    fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide'), zeros(12), Buffer.from('VideoHandler\0')),
    box(
      'minf',
      fullBox('vmhd', 0, 1, zeros(8)),
      box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
      sampleTable,
    ),
  );
}

function sampleEntry(width: number, height: number, sps: Buffer, pps: Buffer): Buffer {
  const compressorName = zeros(32);
  const decoderConfiguration = box(
    'avcC',
    Buffer.from([1, sps[1], sps[2], sps[3], 0xff, 0xe1]), // 4-byte NAL lengths, one SPS
    u16(sps.length),
    sps,
    Buffer.from([1]),
    u16(pps.length),
    pps,
  );
  return box(
    'avc1',
    zeros(6),
    u16(1),
    zeros(16),
    u16(width),
    u16(height),
    u32(0x480000),
    u32(0x480000),
    u32(0),
    u16(1),
    compressorName,
    u16(0x18),
    u16(0xffff),
    decoderConfiguration,
  );
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'ascii'), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, u32((version << 24) | flags), ...payload);
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value >>> 0);
  return buffer;
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

function zeros(length: number): Buffer {
  return Buffer.alloc(length);
}
