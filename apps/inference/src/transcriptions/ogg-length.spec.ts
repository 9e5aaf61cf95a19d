import { audioRefusal, oggFile, oggPage } from '../../test/audio-fixtures';
import { oggLength } from './ogg-length';

const NO_GRANULE = 0xffff_ffff_ffff_ffffn;

describe('oggLength', () => {
  it.each<[string, Parameters<typeof oggFile>[0], number]>([
    ['Opus, after its pre-skip', { seconds: 40, audioBytes: 60_000 }, 40],
    ['Opus without a pre-skip', { seconds: 12.5, preSkip: 0, audioBytes: 20_000 }, 12.5],
    ['Vorbis at 44.1 kHz', { seconds: 7, codec: 'vorbis', sampleRate: 44_100, audioBytes: 30_000 }, 7],
  ])('reads %s from the last granule position', (_label, fields, seconds) => {
    expect(oggLength(oggFile(fields))).toEqual({ seconds: expect.closeTo(seconds, 6), exact: false });
  });

  it('reads a FLAC stream in Ogg by its STREAMINFO rate', () => {
    const mapping = Buffer.alloc(51);
    mapping[0] = 0x7f;
    mapping.write('FLAC', 1, 'latin1');
    mapping.write('fLaC', 9, 'latin1');
    // STREAMINFO starts at 17; 16 000 Hz (20 bits) at its bytes 10–12.
    mapping[27] = 16_000 >> 12;
    mapping[28] = (16_000 >> 4) & 0xff;
    mapping[29] = (16_000 & 0x0f) << 4;
    const bytes = Buffer.concat([
      oggPage(7, 0, 0n, mapping, 0x02),
      oggPage(7, 1, 32_000n, Buffer.alloc(4_000)),
    ]);
    expect(oggLength(bytes)).toEqual({ seconds: 2, exact: false });
  });

  it('skips pages where no packet ends and pages of other streams', () => {
    const file = oggFile({ seconds: 3, audioBytes: 8_000 });
    const bytes = Buffer.concat([
      file,
      oggPage(0x1234, 9, NO_GRANULE, Buffer.alloc(100)),
      oggPage(0x9999, 0, 48_000n * 1_000n, Buffer.alloc(100)),
    ]);
    expect(oggLength(bytes)?.seconds).toBeCloseTo(3, 6);
  });

  it('passes over junk between pages and ignores a last page cut short', () => {
    const file = oggFile({ seconds: 3, audioBytes: 8_000 });
    const cut = oggPage(0x1234, 5, 48_000n * 60n, Buffer.alloc(2_000)).subarray(0, 1_000);
    expect(oggLength(Buffer.concat([file, Buffer.from('junk'), cut]))?.seconds).toBeCloseTo(3, 6);
  });

  it('states nothing for a codec without a known clock', () => {
    const theora = Buffer.from('\x80theora and the rest of a video header', 'latin1');
    expect(
      oggLength(Buffer.concat([oggPage(1, 0, 0n, theora, 0x02), oggPage(1, 1, 1_000n, Buffer.alloc(100))])),
    ).toBeNull();
  });

  it('refuses a stream stating a sample rate of 0 on file', () => {
    expect(
      audioRefusal(() => oggLength(oggFile({ seconds: 1, codec: 'vorbis', sampleRate: 0, audioBytes: 100 }))),
    ).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: 'The Ogg stream states a sample rate of 0',
    });
  });
});
