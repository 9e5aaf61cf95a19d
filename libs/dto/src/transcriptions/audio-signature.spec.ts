import { detectAudioFormat } from './audio-signature';
import { isIso6391 } from './transcription-request.dto';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

describe('detectAudioFormat', () => {
  it.each([
    ['wav', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')],
    ['flac', bytes('fLaC', [0, 0, 0, 0x22])],
    ['ogg', bytes('OggS', [0, 2])],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f])],
    ['m4a', bytes([0, 0, 0, 0x20], 'ftypM4A ')],
    ['mp3', bytes('ID3', [4, 0, 0])],
    ['mp3', bytes([0xff, 0xfb, 0x90, 0x64])],
    ['mp3', bytes([0xff, 0xf3, 0x48, 0xc4])],
  ])('recognises %s by its first bytes', (format, content) => {
    expect(detectAudioFormat(content)).toBe(format);
  });

  it.each([
    ['a RIFF that is not WAVE (AVI)', bytes('RIFF', [0, 0, 0, 0], 'AVI ')],
    ['a PNG', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['text', bytes('hello, this is not audio')],
    ['an MPEG sync word with the reserved version', bytes([0xff, 0xeb, 0x90])],
    ['an MPEG sync word with the reserved layer', bytes([0xff, 0xf9, 0x90])],
    ['nothing', bytes()],
    ['a truncated header', bytes('RIF')],
  ])('refuses %s', (_label, content) => {
    expect(detectAudioFormat(content)).toBeNull();
  });
});

describe('isIso6391', () => {
  it('accepts ISO-639-1 codes only', () => {
    expect(['en', 'ru', 'de', 'zh'].map(isIso6391)).toEqual([true, true, true, true]);
    expect(['EN', 'eng', 'xx', 'en-US', '', 7].map(isIso6391)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
