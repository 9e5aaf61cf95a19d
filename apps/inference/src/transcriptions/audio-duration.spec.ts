import { durationBounds, flacDurationSeconds, wavDurationSeconds } from './audio-duration';

/** A PCM WAV: 44-byte header (with an extra `LIST` chunk when asked), then `seconds` of silence. */
function wav(seconds: number, sampleRate = 16_000, channels = 1, extraChunk = false): Buffer {
  const byteRate = sampleRate * channels * 2;
  const data = Buffer.alloc(Math.round(seconds * byteRate));
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(byteRate, 16);
  fmt.writeUInt16LE(channels * 2, 20);
  fmt.writeUInt16LE(16, 22);
  const list = extraChunk ? Buffer.concat([Buffer.from('LIST', 'ascii'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc\0', 'ascii')]) : Buffer.alloc(0);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'ascii');
  dataHeader.writeUInt32LE(data.length, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(4 + fmt.length + list.length + 8 + data.length, 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, fmt, list, dataHeader, data]);
}

/** A FLAC stream's first bytes: the marker and a STREAMINFO block. */
function flac(sampleRate: number, totalSamples: number): Buffer {
  const bytes = Buffer.alloc(42);
  bytes.write('fLaC', 0, 'ascii');
  bytes[4] = 0x80;
  bytes.writeUIntBE(34, 5, 3);
  bytes[18] = (sampleRate >> 12) & 0xff;
  bytes[19] = (sampleRate >> 4) & 0xff;
  bytes[20] = ((sampleRate & 0x0f) << 4) | 0x02;
  bytes[21] = 0xf0 | Math.floor(totalSamples / 2 ** 32);
  bytes.writeUInt32BE(totalSamples % 2 ** 32, 22);
  return bytes;
}

describe('wavDurationSeconds', () => {
  it.each([
    [2, 16_000, 1],
    [1.5, 44_100, 2],
    [0.25, 8_000, 1],
  ])('reads %p s at %p Hz, %p channel(s)', (seconds, rate, channels) => {
    expect(wavDurationSeconds(wav(seconds, rate, channels))).toBeCloseTo(seconds, 6);
  });

  it('skips chunks before the data, padded to an even length', () => {
    expect(wavDurationSeconds(wav(3, 16_000, 1, true))).toBeCloseTo(3, 6);
  });

  it('counts only the bytes present when the data size overstates them', () => {
    const truncated = wav(2).subarray(0, 44 + 16_000);
    expect(wavDurationSeconds(truncated)).toBeCloseTo(0.5, 6);
  });

  it('answers null for anything but a WAV with a format chunk', () => {
    expect(wavDurationSeconds(Buffer.from('ID3 not a wav at all'))).toBeNull();
  });
});

describe('flacDurationSeconds', () => {
  it('divides the total samples by the sample rate', () => {
    expect(flacDurationSeconds(flac(48_000, 48_000 * 90))).toBe(90);
    expect(flacDurationSeconds(flac(44_100, 2 ** 33))).toBeCloseTo(2 ** 33 / 44_100, 6);
  });

  it('answers null when the stream does not state its length', () => {
    expect(flacDurationSeconds(flac(48_000, 0))).toBeNull();
  });
});

describe('durationBounds', () => {
  it('is exact for a WAV', () => {
    expect(durationBounds(wav(4), 'wav')).toEqual({ exact: 4, lower: 4, upper: 4 });
  });

  it('bounds a compressed file by the highest and lowest plausible bitrates', () => {
    const bytes = Buffer.alloc(40_000);
    expect(durationBounds(bytes, 'mp3')).toEqual({ exact: null, lower: 1, upper: 40_000 * 8 / 6_000 });
    expect(durationBounds(bytes, 'ogg').lower).toBeCloseTo(0.625, 6);
  });
});
