import type { AudioFormat } from '@gw/contracts';
import { audioDuration } from './audio-duration';
import {
  audioRefusal,
  flacFile,
  m4aFile,
  mp3Frames,
  oggFile,
  wavFile,
  webmFile,
} from '../../test/audio-fixtures';

describe('audioDuration', () => {
  it('holds exactly the length of a PCM WAV', () => {
    expect(audioDuration(wavFile({ seconds: 4 }), 'wav')).toEqual({ stated: 4, lower: 4, upper: 4 });
  });

  it('refuses the audit WAV (1.0 s whose byte_rate says 1) rather than billing 32 000 s', () => {
    expect(audioRefusal(() => audioDuration(wavFile({ seconds: 1, byteRate: 1 }), 'wav'))).toMatchObject({
      code: 'invalid_request',
      param: 'file',
    });
  });

  it('states the audit MP3 (1 532 frames at 128 kbit/s) as 40.02 s, held between 320 and 8 kbit/s', () => {
    const bytes = mp3Frames(1532);
    expect(audioDuration(bytes, 'mp3')).toEqual({
      stated: expect.closeTo((1532 * 1152) / 44_100, 9),
      lower: (bytes.length * 8) / 320_000,
      upper: (bytes.length * 8) / 8_000,
    });
  });

  it.each<[string, Buffer, AudioFormat, number | null]>([
    ['a FLAC header within its bytes', flacFile(16_000, 16_000 * 10, 60_000), 'flac', 10],
    [
      'an M4A movie header within its bytes',
      m4aFile({ timescale: 1_000, duration: 10_000, audioBytes: 20_000 }),
      'm4a',
      10,
    ],
    ['Ogg granules within their bytes', oggFile({ seconds: 10, audioBytes: 20_000 }), 'ogg', 10],
    [
      'WebM timestamps within their bytes',
      webmFile({ clusters: [{ time: 0, blocks: [0, 10_000] }], blockBytes: 10_000 }),
      'webm',
      10,
    ],
    ['a FLAC stream of unknown total', flacFile(16_000, 0, 60_000), 'flac', null],
    [
      'a fragmented M4A without a duration',
      m4aFile({ timescale: 1_000, duration: 0, audioBytes: 20_000 }),
      'm4a',
      null,
    ],
  ])(
    'keeps the bounds of the bytes for %s, which the sender could understate',
    (_label, bytes, format, stated) => {
      const duration = audioDuration(bytes, format);
      expect(duration).toEqual({
        stated: stated === null ? null : expect.closeTo(stated, 6),
        lower: expect.any(Number),
        upper: expect.closeTo((bytes.length * 8) / 6_000, 9),
      });
      expect(duration.lower).toBeLessThan(duration.upper);
    },
  );

  it.each<[string, Buffer, AudioFormat, RegExp]>([
    [
      'a WAV at 500 Hz, 8-bit: 4 kbit/s',
      wavFile({ seconds: 10, sampleRate: 500, bitsPerSample: 8 }),
      'wav',
      /WAV file states 10\.000 s of audio, more than its 5044 bytes can hold at 6 kbit\/s/,
    ],
    [
      'a compressed WAV declaring 100 bytes a second',
      wavFile({
        seconds: 1,
        sampleRate: 8_000,
        bitsPerSample: 4,
        formatTag: 0x11,
        byteRate: 100,
        blockAlign: 256,
      }),
      'wav',
      /WAV file states 80\.000 s/,
    ],
    [
      'a FLAC header of 2^35 samples at 8 kHz in 1 KB',
      flacFile(8_000, 2 ** 35, 1_000),
      'flac',
      /FLAC file states 4294967\.296 s/,
    ],
    [
      'an M4A header of 10 hours in 20 KB',
      m4aFile({ timescale: 1_000, duration: 36_000_000, audioBytes: 20_000 }),
      'm4a',
      /M4A file states 36000\.000 s/,
    ],
    [
      'an Ogg granule of 10 hours in 20 KB',
      oggFile({ seconds: 36_000, audioBytes: 20_000 }),
      'ogg',
      /OGG file states 36000\.000 s/,
    ],
    [
      'a WebM cluster at 10 hours in 20 KB',
      webmFile({ clusters: [{ time: 36_000_000, blocks: [0] }], blockBytes: 20_000 }),
      'webm',
      /WEBM file states 36000\.000 s/,
    ],
    // A scale element of 400 bytes reads as Infinity; block 0 at that scale is no number at all.
    [
      'a WebM timestamp scale too large to be a number',
      webmFile({
        clusters: [{ time: 0, blocks: [0] }],
        timecodeScale: Buffer.alloc(400, 0xff),
        blockBytes: 10,
      }),
      'webm',
      /WEBM file states NaN s/,
    ],
  ])('refuses %s: more seconds than the bytes hold', (_label, bytes, format, message) => {
    expect(audioRefusal(() => audioDuration(bytes, format))).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringMatching(message),
    });
  });
});
