/** OpenAI's `pcm` speech format, which the WAV answer wraps: 24 kHz, 16-bit signed little-endian, mono. */
export const PCM_SAMPLE_RATE = 24_000;
const TONE_HZ = 440;
const TONE_AMPLITUDE = 3_000;

/** A quiet 440 Hz tone of this length, so the audio is not mistaken for an empty file. */
export function encodePcm(durationMs: number): Buffer {
  const samples = Math.round((PCM_SAMPLE_RATE * durationMs) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    pcm.writeInt16LE(
      Math.round(TONE_AMPLITUDE * Math.sin((2 * Math.PI * TONE_HZ * i) / PCM_SAMPLE_RATE)),
      i * 2,
    );
  }
  return pcm;
}

/** The PCM tone in a canonical 44-byte RIFF/WAVE header. */
export function encodeWav(durationMs: number): Buffer {
  const pcm = encodePcm(durationMs);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(PCM_SAMPLE_RATE, 24);
  header.writeUInt32LE(PCM_SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** MPEG-1 Layer III, 64 kbit/s, 48 kHz, mono, no CRC: 1152 samples (24 ms) in 192 bytes. */
export const MP3_FRAME_HEADER = Buffer.from([0xff, 0xfb, 0x54, 0xc0]);
export const MP3_FRAME_BYTES = 192;
export const MP3_FRAME_MS = 24;

/**
 * Silent MP3 frames: a frame whose side information is all zero codes no spectral values, which
 * every decoder plays as silence. Enough frames to last at least `durationMs`.
 */
export function encodeMp3(durationMs: number): Buffer {
  const frame = Buffer.alloc(MP3_FRAME_BYTES);
  MP3_FRAME_HEADER.copy(frame);
  const frames = Math.max(1, Math.ceil(durationMs / MP3_FRAME_MS));
  return Buffer.alloc(frames * MP3_FRAME_BYTES).fill(frame);
}
