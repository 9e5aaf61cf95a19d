import { detectStoredMedia } from './media-signature';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('detectStoredMedia', () => {
  it.each([
    [bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13]), 'IMAGE', 'image/png'],
    [bytes([0xff, 0xd8, 0xff, 0xe0]), 'IMAGE', 'image/jpeg'],
    [bytes('GIF89a'), 'IMAGE', 'image/gif'],
    [bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'IMAGE', 'image/webp'],
    [bytes([0, 0, 0, 0x20], 'ftypisom'), 'VIDEO', 'video/mp4'],
    [bytes([0, 0, 0, 0x14], 'ftypqt  '), 'VIDEO', 'video/quicktime'],
    [bytes([0x1a, 0x45, 0xdf, 0xa3]), 'VIDEO', 'video/webm'],
    [bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'), 'VIDEO', 'video/x-msvideo'],
    [bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'AUDIO', 'audio/wav'],
    [bytes('ID3', [4, 0]), 'AUDIO', 'audio/mpeg'],
    [bytes('fLaC'), 'AUDIO', 'audio/flac'],
    [bytes('OggS'), 'AUDIO', 'audio/ogg'],
    [bytes([0, 0, 0, 0x20], 'ftypM4A '), 'AUDIO', 'audio/mp4'],
  ])('recognises %#', (head, fileType, mimeType) => {
    expect(detectStoredMedia(head)).toEqual({ fileType, mimeType });
  });

  it.each([[bytes('%PDF-1.7')], [bytes('<html>')], [bytes('')], [bytes('PK', [3, 4])]])(
    'refuses anything else %#',
    (head) => {
      expect(detectStoredMedia(head)).toBeNull();
    },
  );
});
