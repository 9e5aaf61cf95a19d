import { audioRefusal, flacFile } from '../../test/audio-fixtures';
import { flacLength } from './flac-length';

describe('flacLength', () => {
  it.each<[string, number, number, number]>([
    ['90 s at 48 kHz', 48_000, 48_000 * 90, 90],
    ['a 36-bit total', 44_100, 2 ** 33, 2 ** 33 / 44_100],
  ])('states %s from STREAMINFO, not exactly', (_label, rate, samples, seconds) => {
    expect(flacLength(flacFile(rate, samples))).toEqual({
      seconds: expect.closeTo(seconds, 6),
      exact: false,
    });
  });

  it('states nothing when the total is unknown (0)', () => {
    expect(flacLength(flacFile(48_000, 0))).toBeNull();
  });

  it.each<[string, Buffer, RegExp]>([
    ['a sample rate of 0', flacFile(0, 1_000), /sample rate of 0/],
    [
      'another metadata block first',
      Buffer.concat([Buffer.from('fLaC\x04\0\0\x08', 'latin1'), Buffer.alloc(40)]),
      /does not start with its STREAMINFO/,
    ],
    ['a STREAMINFO cut short', flacFile(48_000, 100).subarray(0, 20), /cut short/],
  ])('refuses %s on file', (_label, bytes, message) => {
    expect(audioRefusal(() => flacLength(bytes))).toEqual({
      code: 'invalid_request',
      param: 'file',
      message: expect.stringMatching(message),
    });
  });
});
