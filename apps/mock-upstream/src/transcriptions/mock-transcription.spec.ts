import { mockDurationSeconds } from './mock-transcription';

/** A 16-bit PCM WAV of `seconds` of silence whose byte_rate field says what it is told. */
function wav(seconds: number, sampleRate: number, channels: number, byteRate: number): Buffer {
  const blockAlign = channels * 2;
  const header = Buffer.alloc(44);
  header.write('RIFFxxxxWAVEfmt ', 0, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(byteRate, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  const data = Buffer.alloc(seconds * sampleRate * blockAlign);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('mockDurationSeconds', () => {
  it.each<[string, Buffer, number]>([
    ['a WAV by its data over sample rate × block align', wav(2, 16_000, 1, 32_000), 2],
    ['a stereo WAV the same way', wav(1, 8_000, 2, 32_000), 1],
    // byte_rate 1 would have made 32 000 s of one second.
    ['a WAV whose byte_rate lies, by its sample layout', wav(1, 16_000, 1, 1), 1],
    ['anything else by its bytes at 128 kbit/s', Buffer.alloc(16_000), 1],
  ])('hears %s', (_label, bytes, seconds) => {
    expect(mockDurationSeconds(bytes)).toBe(seconds);
  });
});
