import { invalidAudio, type StatedLength } from './stated-length';

export interface StreamInfo {
  sampleRate: number;
  /** 0: unknown (a stream written before its end was known). */
  totalSamples: number;
}

/** The 34-byte STREAMINFO block's sample rate (20 bits) and total samples (36 bits), read from its first byte at `offset`. */
export function streamInfo(bytes: Buffer, offset: number): StreamInfo {
  if (offset + 18 > bytes.length) throw invalidAudio('The FLAC STREAMINFO block is cut short');
  const sampleRate = (bytes[offset + 10] << 12) | (bytes[offset + 11] << 4) | (bytes[offset + 12] >> 4);
  if (sampleRate === 0) throw invalidAudio('The FLAC STREAMINFO block states a sample rate of 0');
  return {
    sampleRate,
    totalSamples: (bytes[offset + 13] & 0x0f) * 2 ** 32 + bytes.readUInt32BE(offset + 14),
  };
}

/**
 * A FLAC file's length as its STREAMINFO states it: total samples over the sample rate. Both are
 * the sender's word (a decoder decodes the frames, whatever the total says), so the length is not
 * exact and audioLength bounds it by the bytes; null when the stream does not state its total.
 */
export function flacLength(bytes: Buffer): StatedLength | null {
  // `fLaC`, then a metadata block header whose type (low 7 bits) must be 0, STREAMINFO.
  if (bytes.length < 8 || (bytes[4] & 0x7f) !== 0)
    throw invalidAudio('The FLAC file does not start with its STREAMINFO block');
  const { sampleRate, totalSamples } = streamInfo(bytes, 8);
  return totalSamples === 0 ? null : { seconds: totalSamples / sampleRate, exact: false };
}
