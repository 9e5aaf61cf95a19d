import { audioRefusal, m4aFile } from '../../test/audio-fixtures';
import { m4aLength } from './m4a-length';

describe('m4aLength', () => {
  it.each<[string, Parameters<typeof m4aFile>[0], number | null]>([
    [
      'a version 0 movie header after the media data',
      { timescale: 44_100, duration: 44_100 * 40, audioBytes: 1_000 },
      40,
    ],
    [
      'a version 1 (64-bit) movie header',
      { timescale: 1_000, duration: 12_345, audioBytes: 1_000, wide: true },
      12.345,
    ],
    [
      'a fragmented file by its mehd',
      { timescale: 1_000, duration: 0, fragmentDuration: 31_000, audioBytes: 1_000 },
      31,
    ],
    [
      'nothing for a fragmented file without mehd',
      { timescale: 1_000, duration: 0, audioBytes: 1_000 },
      null,
    ],
    [
      'nothing for an unknown (all ones) duration',
      { timescale: 1_000, duration: 0xffffffff, audioBytes: 1_000 },
      null,
    ],
  ])('states %s', (_label, fields, seconds) => {
    expect(m4aLength(m4aFile(fields))).toEqual(seconds === null ? null : { seconds, exact: false });
  });

  it('steps over a box with a 64-bit size', () => {
    const file = m4aFile({ timescale: 1_000, duration: 5_000, audioBytes: 0 });
    // Rewrite the empty mdat (right after the 24-byte ftyp) as a 16-byte box of size 1 + largesize 16.
    const large = Buffer.alloc(16);
    large.writeUInt32BE(1, 0);
    large.write('mdat', 4, 'latin1');
    large.writeBigUInt64BE(16n, 8);
    const bytes = Buffer.concat([file.subarray(0, 24), large, file.subarray(32)]);
    expect(m4aLength(bytes)).toEqual({ seconds: 5, exact: false });
  });

  it.each<[string, Buffer, RegExp]>([
    ['a timescale of 0', m4aFile({ timescale: 0, duration: 1_000, audioBytes: 100 }), /timescale of 0/],
    [
      'no moov box',
      m4aFile({ timescale: 1_000, duration: 1_000, audioBytes: 100 }).subarray(0, 24 + 108),
      /no movie box/,
    ],
    [
      'a movie header cut short',
      m4aFile({ timescale: 1_000, duration: 1_000, audioBytes: 0 }).subarray(0, 24 + 8 + 8 + 8 + 10),
      /no complete movie header/,
    ],
  ])('refuses %s on file', (_label, bytes, message) => {
    expect(audioRefusal(() => m4aLength(bytes))).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringMatching(message),
    });
  });
});
