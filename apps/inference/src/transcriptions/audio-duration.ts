import type { AudioFormat } from '@gw/contracts';

/** What is known of an audio file's length before a provider has heard it. */
export interface DurationBounds {
  /** Exact when the header states it (WAV, FLAC); otherwise null. */
  exact: number | null;
  /** Seconds at the highest plausible bitrate: the shortest the audio can be. */
  lower: number;
  /** Seconds at the lowest plausible bitrate: the longest the audio can be, what is reserved for. */
  upper: number;
}

/** Bits per second no real file of the format goes above: a lossless 192 kHz stereo stream, or the lossy codecs' maxima. */
const MAX_BITRATE: Record<AudioFormat, number> = {
  wav: 6_144_000,
  flac: 6_144_000,
  mp3: 320_000,
  m4a: 512_000,
  ogg: 512_000,
  webm: 512_000,
};
/** Opus, the most frugal codec a speech file is likely to use, goes down to 6 kbit/s. */
const MIN_BITRATE = 6_000;

export function durationBounds(bytes: Buffer, format: AudioFormat): DurationBounds {
  const exact = format === 'wav' ? wavDurationSeconds(bytes) : format === 'flac' ? flacDurationSeconds(bytes) : null;
  if (exact !== null) return { exact, lower: exact, upper: exact };
  const bits = bytes.length * 8;
  return { exact: null, lower: bits / MAX_BITRATE[format], upper: bits / MIN_BITRATE };
}

/** Duration from the `fmt ` byte rate and the `data` chunk size; a streamed WAV (size unset) counts the bytes present. */
export function wavDurationSeconds(bytes: Buffer): number | null {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') return null;
  let byteRate: number | null = null;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 12 <= bytes.length) byteRate = bytes.readUInt32LE(body + 8);
    if (id === 'data') {
      if (!byteRate) return null;
      return Math.min(size, bytes.length - body) / byteRate;
    }
    // Chunks are padded to an even length.
    offset = body + size + (size % 2);
  }
  return null;
}

/** Duration from the STREAMINFO block, which every FLAC stream starts with: total samples over the sample rate. */
export function flacDurationSeconds(bytes: Buffer): number | null {
  if (bytes.length < 26 || bytes.toString('ascii', 0, 4) !== 'fLaC' || (bytes[4] & 0x7f) !== 0) return null;
  const sampleRate = (bytes[18] << 12) | (bytes[19] << 4) | (bytes[20] >> 4);
  const totalSamples = (bytes[21] & 0x0f) * 2 ** 32 + bytes.readUInt32BE(22);
  if (sampleRate === 0 || totalSamples === 0) return null;
  return totalSamples / sampleRate;
}
