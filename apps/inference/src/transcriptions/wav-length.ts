import { invalidAudio, type StatedLength } from './stated-length';

/** Format tags whose samples are stored as they are: PCM, IEEE float, A-law, µ-law. */
const UNCOMPRESSED_FORMAT_TAGS = new Set([0x0001, 0x0003, 0x0006, 0x0007]);
/** WAVE_FORMAT_EXTENSIBLE: the real format tag is the first two bytes of the sub-format GUID. */
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** A data size writers leave when they stream: the data runs to the end of the file (as ffmpeg reads it). */
const STREAMED_DATA_SIZES = new Set([0, 0xffffffff]);

interface WavFormat {
  formatTag: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

/**
 * The length of a WAV file: the bytes of its `data` chunk present in the file over the bytes one
 * second takes. For uncompressed samples a second is sample_rate × block_align bytes, and the
 * header must agree with itself (block_align = channels × bytes per sample, byte_rate =
 * sample_rate × block_align), since a decoder follows the sample layout, not byte_rate: a
 * contradicting header is refused rather than billed by whichever field the sender chose. A
 * compressed codec (ADPCM, GSM…) is measured by its declared byte_rate, which is not exact.
 */
export function wavLength(bytes: Buffer): StatedLength {
  let format: WavFormat | null = null;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') format = wavFormat(bytes.subarray(body, Math.min(body + size, bytes.length)));
    if (id === 'data') {
      if (!format) throw invalidAudio('The WAV file has no fmt chunk before its data');
      const present = bytes.length - body;
      const dataBytes = STREAMED_DATA_SIZES.has(size) ? present : Math.min(size, present);
      const uncompressed = UNCOMPRESSED_FORMAT_TAGS.has(format.formatTag);
      return { seconds: dataBytes / bytesPerSecond(format, uncompressed), exact: uncompressed };
    }
    // Chunks are padded to an even length.
    offset = body + size + (size % 2);
  }
  throw invalidAudio('The WAV file has no data chunk');
}

function wavFormat(chunk: Buffer): WavFormat {
  if (chunk.length < 16) throw invalidAudio('The WAV fmt chunk is shorter than 16 bytes');
  const tag = chunk.readUInt16LE(0);
  return {
    formatTag: tag === WAVE_FORMAT_EXTENSIBLE && chunk.length >= 26 ? chunk.readUInt16LE(24) : tag,
    channels: chunk.readUInt16LE(2),
    sampleRate: chunk.readUInt32LE(4),
    byteRate: chunk.readUInt32LE(8),
    blockAlign: chunk.readUInt16LE(12),
    bitsPerSample: chunk.readUInt16LE(14),
  };
}

function bytesPerSecond(format: WavFormat, uncompressed: boolean): number {
  const { channels, sampleRate, byteRate, blockAlign, bitsPerSample } = format;
  if (channels === 0 || sampleRate === 0 || byteRate === 0 || blockAlign === 0) {
    throw invalidAudio(
      `The WAV header states a zero field (channels ${channels}, sample_rate ${sampleRate}, byte_rate ${byteRate}, block_align ${blockAlign})`,
    );
  }
  if (!uncompressed) return byteRate;
  const frameBytes = channels * Math.ceil(bitsPerSample / 8);
  if (bitsPerSample === 0 || blockAlign !== frameBytes) {
    throw invalidAudio(
      `The WAV header contradicts itself: block_align ${blockAlign} is not channels × bytes per sample (${channels} × ${bitsPerSample} bits)`,
    );
  }
  if (byteRate !== sampleRate * blockAlign) {
    throw invalidAudio(
      `The WAV header contradicts itself: byte_rate ${byteRate} is not sample_rate × block_align (${sampleRate} × ${blockAlign})`,
    );
  }
  return sampleRate * blockAlign;
}
