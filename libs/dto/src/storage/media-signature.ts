import type { StoredFileType } from '@gw/contracts';
import { detectAudioFormat } from '../transcriptions/audio-signature';

/** How many leading bytes the detection reads. */
export const MEDIA_SIGNATURE_BYTES = 64;

export interface DetectedMedia {
  fileType: StoredFileType;
  mimeType: string;
}

const ascii = (bytes: Uint8Array, offset: number, text: string) =>
  bytes.length >= offset + text.length &&
  [...text].every((char, i) => bytes[offset + i] === char.charCodeAt(0));

const AUDIO_MIME = { wav: 'audio/wav', flac: 'audio/flac', ogg: 'audio/ogg', mp3: 'audio/mpeg' } as const;

/**
 * What a stored file is, by its first bytes alone (a name or declared type proves nothing): an
 * image (PNG, JPEG, GIF, WebP), a video (MP4, QuickTime, WebM, AVI) or audio (WAV, MP3, FLAC, OGG,
 * M4A); null for anything else.
 */
export function detectStoredMedia(bytes: Uint8Array): DetectedMedia | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 'PNG\r\n\x1a\n'))
    return { fileType: 'IMAGE', mimeType: 'image/png' };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { fileType: 'IMAGE', mimeType: 'image/jpeg' };
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a'))
    return { fileType: 'IMAGE', mimeType: 'image/gif' };
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP'))
    return { fileType: 'IMAGE', mimeType: 'image/webp' };
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'AVI '))
    return { fileType: 'VIDEO', mimeType: 'video/x-msvideo' };
  if (ascii(bytes, 4, 'ftyp')) {
    // The major brand says whether an ISO media file is audio only.
    if (['M4A ', 'M4B ', 'M4P '].some((brand) => ascii(bytes, 8, brand)))
      return { fileType: 'AUDIO', mimeType: 'audio/mp4' };
    if (ascii(bytes, 8, 'qt  ')) return { fileType: 'VIDEO', mimeType: 'video/quicktime' };
    return { fileType: 'VIDEO', mimeType: 'video/mp4' };
  }
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3)
    return { fileType: 'VIDEO', mimeType: 'video/webm' };
  const audio = detectAudioFormat(bytes);
  switch (audio) {
    case 'wav':
    case 'flac':
    case 'ogg':
    case 'mp3':
      return { fileType: 'AUDIO', mimeType: AUDIO_MIME[audio] };
    case 'm4a':
    case 'webm':
    case null:
    default:
      return null;
  }
}
