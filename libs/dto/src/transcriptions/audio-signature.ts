import type { AudioFormat } from '@gw/contracts';

/** The interface's audio file size limit: 25 MB. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/** The media type each format is stored and sent upstream as. */
export const AUDIO_MIME_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  webm: 'audio/webm',
};

const ascii = (bytes: Uint8Array, offset: number, text: string) =>
  bytes.length >= offset + text.length &&
  [...text].every((char, i) => bytes[offset + i] === char.charCodeAt(0));

/**
 * The audio format by the file's first bytes, or null when it is none of MP3, WAV, M4A, FLAC, OGG,
 * WebM. A file name or declared type proves nothing, so only content counts.
 */
export function detectAudioFormat(bytes: Uint8Array): AudioFormat | null {
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WAVE')) return 'wav';
  if (ascii(bytes, 0, 'fLaC')) return 'flac';
  if (ascii(bytes, 0, 'OggS')) return 'ogg';
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3)
    return 'webm';
  // ISO base media (M4A, MP4 audio): a `ftyp` box at offset 4.
  if (ascii(bytes, 4, 'ftyp')) return 'm4a';
  if (ascii(bytes, 0, 'ID3')) return 'mp3';
  // A bare MPEG audio frame: 11 sync bits, a valid version and layer III/II/I.
  if (
    bytes.length >= 2 &&
    bytes[0] === 0xff &&
    (bytes[1] & 0xe0) === 0xe0 &&
    (bytes[1] & 0x18) !== 0x08 &&
    (bytes[1] & 0x06) !== 0
  )
    return 'mp3';
  return null;
}
