import type { AudioFormat } from '@gw/contracts';
import { flacLength } from './flac-length';
import { m4aLength } from './m4a-length';
import { mp3Length } from './mp3-length';
import { oggLength } from './ogg-length';
import { invalidAudio, type StatedLength } from './stated-length';
import { wavLength } from './wav-length';
import { webmLength } from './webm-length';

/** What is known of an audio file's length before a provider has heard it. */
export interface AudioDuration {
  /**
   * Seconds by the file's own structure (PCM samples, MPEG frames, Ogg granules, WebM block
   * timestamps, the FLAC or M4A header), never more than `upper`; null where it states none. The
   * model's rules (chunking on the diarizing model) apply to it.
   */
  stated: number | null;
  /** The shortest the audio can be: at the highest plausible bitrate, or the exact length. Billed when a provider reports no duration. */
  lower: number;
  /** The longest the audio can be: at the lowest plausible bitrate, or the exact length. Reserved for, and the most ever billed. */
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
/** Bits per second no real file goes below: MPEG audio's smallest frames carry 8 kbit/s; Opus, the most frugal speech codec, 6 kbit/s. */
const MIN_BITRATE: Record<AudioFormat, number> = {
  wav: 6_000,
  flac: 6_000,
  mp3: 8_000,
  m4a: 6_000,
  ogg: 6_000,
  webm: 6_000,
};

const READERS: Record<AudioFormat, (bytes: Buffer) => StatedLength | null> = {
  wav: wavLength,
  flac: flacLength,
  mp3: mp3Length,
  m4a: m4aLength,
  ogg: oggLength,
  webm: webmLength,
};

/**
 * The audio's length by its structure, checked against its size: a file stating more seconds than
 * its bytes can hold at the format's lowest plausible bitrate contradicts itself and is refused
 * (400 on `file`), so no header field can inflate what is reserved or billed. A length every decoder
 * must hear (PCM WAV) is exact; any other is bounded by the bytes alone, so a file understating its
 * length cannot shrink the hold below what a provider may hear.
 */
export function audioDuration(bytes: Buffer, format: AudioFormat): AudioDuration {
  const bits = bytes.length * 8;
  const longest = bits / MIN_BITRATE[format];
  const stated = READERS[format](bytes);
  if (stated && !(Number.isFinite(stated.seconds) && stated.seconds <= longest)) {
    throw invalidAudio(
      `The ${format.toUpperCase()} file states ${stated.seconds.toFixed(3)} s of audio, more than its ${bytes.length} bytes can hold at ${MIN_BITRATE[format] / 1000} kbit/s`,
    );
  }
  if (stated?.exact) return { stated: stated.seconds, lower: stated.seconds, upper: stated.seconds };
  return { stated: stated?.seconds ?? null, lower: bits / MAX_BITRATE[format], upper: longest };
}
