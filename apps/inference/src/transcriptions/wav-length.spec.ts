import { audioRefusal, wavFile } from '../../test/audio-fixtures';
import { wavLength } from './wav-length';

/** RIFF/WAVE then the given chunks. */
function riff(...chunks: [string, Buffer][]): Buffer {
  const parts = chunks.map(([id, body]) => {
    const header = Buffer.alloc(8);
    header.write(id, 0, 'latin1');
    header.writeUInt32LE(body.length, 4);
    return Buffer.concat([header, body]);
  });
  return Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'), ...parts]);
}

describe('wavLength', () => {
  it.each<[string, Parameters<typeof wavFile>[0], number]>([
    ['16 kHz 16-bit mono', { seconds: 2 }, 2],
    ['44.1 kHz 16-bit stereo', { seconds: 1.5, sampleRate: 44_100, channels: 2 }, 1.5],
    ['8 kHz 8-bit µ-law', { seconds: 0.25, sampleRate: 8_000, bitsPerSample: 8, formatTag: 7 }, 0.25],
    [
      '48 kHz 32-bit float stereo',
      { seconds: 3, sampleRate: 48_000, channels: 2, bitsPerSample: 32, formatTag: 3 },
      3,
    ],
    ['24-bit samples in 3 bytes', { seconds: 1, sampleRate: 48_000, bitsPerSample: 24 }, 1],
    ['a LIST chunk of odd length before the data', { seconds: 3, listChunk: true }, 3],
  ])('counts the samples of %s exactly', (_label, fields, seconds) => {
    const length = wavLength(wavFile(fields));
    expect(length.exact).toBe(true);
    expect(length.seconds).toBeCloseTo(seconds, 9);
  });

  it('measures 1.0 s from the data size when byte_rate is right, whatever the other chunks', () => {
    expect(wavLength(wavFile({ seconds: 1 }))).toEqual({ seconds: 1, exact: true });
  });

  it.each<[string, number, number]>([
    ['a data size above the bytes present counts only those', 32_000 * 5, 1],
    ['a streamed data size (all ones) runs to the end', 0xffffffff, 1],
    ['a streamed data size (0) runs to the end', 0, 1],
    ['a data size below the bytes present counts only the chunk', 16_000, 0.5],
  ])('%s', (_label, dataSize, seconds) => {
    expect(wavLength(wavFile({ seconds: 1, dataSize })).seconds).toBeCloseTo(seconds, 9);
  });

  it('measures a compressed codec by its declared byte_rate, not exactly', () => {
    // IMA ADPCM: 8 000 bytes of data at 4 000 bytes per second.
    expect(
      wavLength(
        wavFile({
          seconds: 1,
          sampleRate: 8_000,
          bitsPerSample: 4,
          formatTag: 0x11,
          byteRate: 4_000,
          blockAlign: 256,
        }),
      ),
    ).toEqual({ seconds: 2, exact: false });
  });

  it.each<[string, Buffer, RegExp]>([
    // The audit's file: 1.0 s at 16 kHz, 16-bit mono, whose byte_rate says 1 (it would have read as 32 000 s).
    [
      'byte_rate 1 on 16 kHz × block_align 2',
      wavFile({ seconds: 1, byteRate: 1 }),
      /byte_rate 1 is not sample_rate × block_align \(16000 × 2\)/,
    ],
    ['byte_rate twice what the layout gives', wavFile({ seconds: 1, byteRate: 64_000 }), /byte_rate 64000/],
    [
      'block_align 4 for 16-bit mono',
      wavFile({ seconds: 1, blockAlign: 4, byteRate: 64_000 }),
      /block_align 4 is not channels × bytes per sample \(1 × 16 bits\)/,
    ],
    [
      '0 bits per sample',
      wavFile({ seconds: 1, bitsPerSample: 0, blockAlign: 2, byteRate: 32_000 }),
      /block_align 2 is not channels × bytes per sample/,
    ],
    [
      'a sample rate of 0',
      wavFile({ seconds: 1, sampleRate: 0, byteRate: 32_000 }),
      /zero field .*sample_rate 0/,
    ],
    [
      '0 channels',
      wavFile({ seconds: 1, channels: 0, blockAlign: 2, byteRate: 32_000 }),
      /zero field \(channels 0/,
    ],
    [
      'a byte_rate of 0 on a compressed codec',
      wavFile({ seconds: 1, formatTag: 0x11, byteRate: 0 }),
      /zero field .*byte_rate 0/,
    ],
    ['no fmt chunk before the data', riff(['data', Buffer.alloc(100)]), /no fmt chunk before its data/],
    ['no data chunk', riff(['fmt ', wavFile({ seconds: 0 }).subarray(20, 36)]), /no data chunk/],
    [
      'a fmt chunk of 12 bytes',
      riff(['fmt ', Buffer.alloc(12)], ['data', Buffer.alloc(100)]),
      /fmt chunk is shorter than 16 bytes/,
    ],
  ])('refuses %s on file', (_label, bytes, message) => {
    expect(audioRefusal(() => wavLength(bytes))).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringMatching(message),
    });
  });
});
