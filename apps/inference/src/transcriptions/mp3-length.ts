import { invalidAudio, type StatedLength } from './stated-length';

/** kbit/s by bitrate index 1–14, for MPEG-1 layers I, II, III and MPEG-2/2.5 layer I, layers II and III. */
const BITRATES = {
  v1l1: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
/** Hz by sample rate index 0–2, by the version bits (0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1). */
const SAMPLE_RATES: Record<number, number[]> = {
  0: [11_025, 12_000, 8_000],
  2: [22_050, 24_000, 16_000],
  3: [44_100, 48_000, 32_000],
};

export interface MpegFrame {
  bytes: number;
  seconds: number;
}

/** The frame whose 4-byte header starts at `offset`, or null where none does (free-format and reserved values included). */
export function mpegFrameAt(bytes: Buffer, offset: number): MpegFrame | null {
  if (offset + 4 > bytes.length || bytes[offset] !== 0xff || (bytes[offset + 1] & 0xe0) !== 0xe0) return null;
  const version = (bytes[offset + 1] >> 3) & 0x03;
  const layer = 4 - ((bytes[offset + 1] >> 1) & 0x03);
  const bitrateIndex = bytes[offset + 2] >> 4;
  const rateIndex = (bytes[offset + 2] >> 2) & 0x03;
  const padding = (bytes[offset + 2] >> 1) & 0x01;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3)
    return null;
  const mpeg1 = version === 3;
  const table = mpeg1
    ? [BITRATES.v1l1, BITRATES.v1l2, BITRATES.v1l3][layer - 1]
    : layer === 1
      ? BITRATES.v2l1
      : BITRATES.v2l23;
  const bitrate = table[bitrateIndex - 1] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const samples = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  const length =
    layer === 1
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  return { bytes: length, seconds: samples / sampleRate };
}

/** An ID3v2 tag's whole length (header, body, footer) at `offset`, or 0. */
function id3v2Length(bytes: Buffer, offset: number): number {
  if (offset + 10 > bytes.length || bytes.toString('latin1', offset, offset + 3) !== 'ID3') return 0;
  const size =
    ((bytes[offset + 6] & 0x7f) << 21) |
    ((bytes[offset + 7] & 0x7f) << 14) |
    ((bytes[offset + 8] & 0x7f) << 7) |
    (bytes[offset + 9] & 0x7f);
  const footer = bytes[offset + 5] & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

/**
 * The length of an MPEG audio file by its frames, as a decoder meets them: the ID3v2 tags at the
 * start are skipped, every complete frame counts its samples, bytes that are not a frame (other tags,
 * junk) are passed over one at a time. No header field is believed (a Xing or VBRI frame count is
 * the sender's word), and no frame carries less than 8 kbit/s, so the length never exceeds what the
 * bytes hold. It is not exact: free-format frames are not counted, and a provider may hear them.
 */
export function mp3Length(bytes: Buffer): StatedLength {
  let offset = 0;
  for (let tag = id3v2Length(bytes, offset); tag > 0; tag = id3v2Length(bytes, offset)) offset += tag;
  let seconds = 0;
  let frames = 0;
  while (offset + 4 <= bytes.length) {
    const frame = mpegFrameAt(bytes, offset);
    if (frame && offset + frame.bytes <= bytes.length) {
      seconds += frame.seconds;
      frames += 1;
      offset += frame.bytes;
    } else {
      offset += 1;
    }
  }
  if (frames === 0) throw invalidAudio('The MP3 file holds no complete MPEG audio frame');
  return { seconds, exact: false };
}
