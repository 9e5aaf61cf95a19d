import { DomainError } from '@gw/contracts';

/**
 * Audio files of each supported format, built byte by byte with the fields the length readers use
 * set as the test asks (including contradicting ones). The payload is silence: only sizes, headers
 * and timestamps matter to what is measured.
 */

export interface WavFields {
  seconds: number;
  sampleRate?: number;
  channels?: number;
  bitsPerSample?: number;
  formatTag?: number;
  /** Header fields written as given instead of derived from the others. */
  byteRate?: number;
  blockAlign?: number;
  /** The `data` chunk's size field, instead of the bytes that follow. */
  dataSize?: number;
  /** A `LIST` chunk of odd length between `fmt ` and `data`. */
  listChunk?: boolean;
}

export function wavFile(fields: WavFields): Buffer {
  const { seconds, sampleRate = 16_000, channels = 1, bitsPerSample = 16, formatTag = 1 } = fields;
  const blockAlign = fields.blockAlign ?? channels * Math.ceil(bitsPerSample / 8);
  const byteRate = fields.byteRate ?? sampleRate * channels * Math.ceil(bitsPerSample / 8);
  const data = Buffer.alloc(Math.round(seconds * sampleRate) * channels * Math.ceil(bitsPerSample / 8));
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(formatTag, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(byteRate, 16);
  fmt.writeUInt16LE(blockAlign, 20);
  fmt.writeUInt16LE(bitsPerSample, 22);
  const list = fields.listChunk
    ? Buffer.concat([
        Buffer.from('LIST', 'latin1'),
        Buffer.from([3, 0, 0, 0]),
        Buffer.from('abc\0', 'latin1'),
      ])
    : Buffer.alloc(0);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(fields.dataSize ?? data.length, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + fmt.length + list.length + 8 + data.length, 4);
  riff.write('WAVE', 8, 'latin1');
  return Buffer.concat([riff, fmt, list, dataHeader, data]);
}

/** An ID3v2.4 tag of `bodyBytes` bytes (the size written syncsafe). */
export function id3Tag(bodyBytes: number): Buffer {
  const tag = Buffer.alloc(10 + bodyBytes);
  tag.write('ID3', 0, 'latin1');
  tag[3] = 4;
  [21, 14, 7, 0].forEach((shift, i) => (tag[6 + i] = (bodyBytes >> shift) & 0x7f));
  return tag;
}

/**
 * `count` MPEG frames of one header, unpadded, each as long as its header says: MPEG-1 layer III at
 * 128 kbit/s and 44.1 kHz (417 bytes, 1152 samples) unless another header is given.
 */
export function mp3Frames(
  count: number,
  header: readonly number[] = [0xff, 0xfb, 0x90, 0x64],
  frameBytes = 417,
): Buffer {
  const frame = Buffer.alloc(frameBytes);
  frame.set(header);
  return Buffer.concat(Array.from({ length: count }, () => frame));
}

/** A FLAC stream: the marker, a STREAMINFO block (the last metadata block) and `audioBytes` of frames. */
export function flacFile(sampleRate: number, totalSamples: number, audioBytes = 0): Buffer {
  const head = Buffer.alloc(42);
  head.write('fLaC', 0, 'latin1');
  head[4] = 0x80;
  head.writeUIntBE(34, 5, 3);
  head[18] = (sampleRate >> 12) & 0xff;
  head[19] = (sampleRate >> 4) & 0xff;
  head[20] = ((sampleRate & 0x0f) << 4) | 0x02;
  head[21] = 0xf0 | Math.floor(totalSamples / 2 ** 32);
  head.writeUInt32BE(totalSamples % 2 ** 32, 22);
  return Buffer.concat([head, Buffer.alloc(audioBytes)]);
}

/** One Ogg page of one packet (lacing values as long as the body needs). */
export function oggPage(
  serial: number,
  sequence: number,
  granule: bigint,
  body: Buffer,
  headerType = 0,
): Buffer {
  const lacing: number[] = [];
  for (let left = body.length; ; left -= 255) {
    lacing.push(Math.min(left, 255));
    if (left < 255) break;
  }
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header[5] = headerType;
  header.writeBigUInt64LE(granule, 6);
  header.writeUInt32LE(serial, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = lacing.length;
  header.set(lacing, 27);
  return Buffer.concat([header, body]);
}

export interface OggFields {
  /** The last page's granule position, in 48 kHz samples after the pre-skip (Opus) or samples at `sampleRate` (Vorbis). */
  seconds: number;
  codec?: 'opus' | 'vorbis';
  sampleRate?: number;
  preSkip?: number;
  /** Bytes of packets after the headers, spread over pages of at most 8 000 bytes. */
  audioBytes: number;
}

/** An Ogg Opus or Vorbis file whose granule positions grow evenly to `seconds`. */
export function oggFile(fields: OggFields): Buffer {
  const { seconds, codec = 'opus', sampleRate = 48_000, preSkip = 312, audioBytes } = fields;
  const serial = 0x1234;
  let identification: Buffer;
  if (codec === 'opus') {
    identification = Buffer.alloc(19);
    identification.write('OpusHead', 0, 'latin1');
    identification[8] = 1;
    identification[9] = 1;
    identification.writeUInt16LE(preSkip, 10);
    identification.writeUInt32LE(sampleRate, 12);
  } else {
    identification = Buffer.alloc(30);
    identification[0] = 0x01;
    identification.write('vorbis', 1, 'latin1');
    identification[11] = 1;
    identification.writeUInt32LE(sampleRate, 12);
  }
  const clockRate = codec === 'opus' ? 48_000 : sampleRate;
  const offset = codec === 'opus' ? preSkip : 0;
  const pages = [oggPage(serial, 0, 0n, identification, 0x02)];
  const chunks = Math.max(1, Math.ceil(audioBytes / 8_000));
  for (let i = 1; i <= chunks; i++) {
    const granule = BigInt(Math.round((seconds * clockRate * i) / chunks) + offset);
    const size = i < chunks ? 8_000 : audioBytes - 8_000 * (chunks - 1);
    pages.push(oggPage(serial, i, granule, Buffer.alloc(size), i === chunks ? 0x04 : 0));
  }
  return Buffer.concat(pages);
}

function box(type: string, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

export interface M4aFields {
  timescale: number;
  /** The movie header's duration in `timescale` units; 0 for a fragmented file that states it in `mehd` instead. */
  duration: number;
  fragmentDuration?: number;
  audioBytes: number;
  /** A version 1 (64-bit) movie header. */
  wide?: boolean;
}

/** An M4A file: `ftyp`, the `mdat` of audio, then `moov` with its movie header at the end, as most encoders write it. */
export function m4aFile(fields: M4aFields): Buffer {
  const { timescale, duration, audioBytes, wide = false } = fields;
  const movieHeader = Buffer.alloc(wide ? 112 : 100);
  movieHeader[0] = wide ? 1 : 0;
  if (wide) {
    movieHeader.writeUInt32BE(timescale, 20);
    movieHeader.writeBigUInt64BE(BigInt(duration), 24);
  } else {
    movieHeader.writeUInt32BE(timescale, 12);
    movieHeader.writeUInt32BE(duration, 16);
  }
  const fragmented =
    fields.fragmentDuration === undefined
      ? []
      : [box('mvex', box('mehd', Buffer.from([0, 0, 0, 0]), uint32(fields.fragmentDuration)))];
  return Buffer.concat([
    box('ftyp', Buffer.from('M4A \0\0\0\0M4A isom', 'latin1')),
    box('mdat', Buffer.alloc(audioBytes)),
    box('moov', box('mvhd', movieHeader), ...fragmented),
  ]);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value, 0);
  return bytes;
}

/** An EBML element: its ID as written (1–4 bytes, length marker included) and its size on 8 bytes, or unknown (all ones). */
function ebml(id: number, content: Buffer, unknownSize = false): Buffer {
  const idLength = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1;
  const idBytes = Buffer.alloc(idLength);
  idBytes.writeUIntBE(id, 0, idLength);
  const size = Buffer.alloc(8);
  if (unknownSize) size.set([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  else {
    size.writeBigUInt64BE(BigInt(content.length), 0);
    size[0] |= 0x01;
  }
  return Buffer.concat([idBytes, size, content]);
}

function ebmlUnsigned(id: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value), 0);
  return ebml(id, bytes);
}

export interface WebmFields {
  /** Each cluster's timestamp and its blocks' offsets from it, in timestamp-scale units. */
  clusters: { time: number; blocks: number[] }[];
  /** The Info's TimecodeScale in nanoseconds, or its raw content; absent: the default (1 ms). */
  timecodeScale?: number | Buffer;
  blockBytes: number;
  /** Segment and clusters of unknown size, as a browser's MediaRecorder writes them. */
  live?: boolean;
  /** Blocks inside block groups instead of simple blocks. */
  grouped?: boolean;
}

/** A WebM file: the EBML header, a segment with Info (the timestamp scale) and clusters of blocks on track 1. */
export function webmFile(fields: WebmFields): Buffer {
  const { clusters, timecodeScale, blockBytes, live = false, grouped = false } = fields;
  const header = ebml(0x1a45dfa3, ebml(0x4282, Buffer.from('webm', 'latin1')));
  const scale =
    timecodeScale === undefined
      ? Buffer.alloc(0)
      : typeof timecodeScale === 'number'
        ? ebmlUnsigned(0x2ad7b1, timecodeScale)
        : ebml(0x2ad7b1, timecodeScale);
  const info = ebml(0x1549a966, scale);
  const clusterElements = clusters.map(({ time, blocks }) => {
    const simpleBlocks = blocks.map((offset) => {
      const block = Buffer.alloc(Math.max(4, blockBytes));
      block[0] = 0x81;
      block.writeInt16BE(offset, 1);
      block[3] = 0x80;
      return grouped ? ebml(0xa0, ebml(0xa1, block)) : ebml(0xa3, block);
    });
    return ebml(0x1f43b675, Buffer.concat([ebmlUnsigned(0xe7, time), ...simpleBlocks]), live);
  });
  return Buffer.concat([header, ebml(0x18538067, Buffer.concat([info, ...clusterElements]), live)]);
}

/** What a length reader refused with (a DomainError on `file`), or null where it answered. */
export function audioRefusal(
  read: () => unknown,
): { code: string; param: string | null; message: string } | null {
  try {
    read();
    return null;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { code: err.code, param: err.param, message: err.message };
  }
}
