/** The deterministic transcript mock-upstream hears in any audio. */
export const MOCK_TRANSCRIPT_SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Pack my box with five dozen liquor jugs.',
];

/**
 * Seconds of audio: a WAV's data bytes over sample_rate × block_align (the sample layout a decoder
 * follows; byte_rate is only the writer's word), otherwise the bytes at 128 kbit/s.
 */
export function mockDurationSeconds(bytes: Buffer): number {
  if (
    bytes.length >= 12 &&
    bytes.toString('ascii', 0, 4) === 'RIFF' &&
    bytes.toString('ascii', 8, 12) === 'WAVE'
  ) {
    let bytesPerSecond = 0;
    for (let offset = 12; offset + 8 <= bytes.length;) {
      const id = bytes.toString('ascii', offset, offset + 4);
      const size = bytes.readUInt32LE(offset + 4);
      if (id === 'fmt ' && offset + 22 <= bytes.length)
        bytesPerSecond = bytes.readUInt32LE(offset + 12) * bytes.readUInt16LE(offset + 20);
      if (id === 'data' && bytesPerSecond > 0)
        return round(Math.min(size, bytes.length - offset - 8) / bytesPerSecond);
      offset += 8 + size + (size % 2);
    }
  }
  return round((bytes.length * 8) / 128_000);
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

export interface MockSegment {
  id: number;
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
}

/** The sentences spread evenly over the audio, one segment each, words evenly within their segment. */
export function mockTranscription(duration: number, temperature: number) {
  const share = duration / MOCK_TRANSCRIPT_SENTENCES.length;
  const segments: MockSegment[] = MOCK_TRANSCRIPT_SENTENCES.map((text, id) => ({
    id,
    seek: 0,
    start: round(id * share),
    end: round((id + 1) * share),
    text: ` ${text}`,
    tokens: [...text].slice(0, 8).map((char) => char.charCodeAt(0)),
    temperature,
    avg_logprob: -0.25,
    compression_ratio: 1.2,
    no_speech_prob: 0.01,
  }));
  const words = segments.flatMap((segment) => {
    const list = segment.text.trim().split(/\s+/);
    const step = (segment.end - segment.start) / list.length;
    return list.map((word, i) => ({
      word: word.replace(/[.,]/g, ''),
      start: round(segment.start + i * step),
      end: round(segment.start + (i + 1) * step),
    }));
  });
  return { text: MOCK_TRANSCRIPT_SENTENCES.join(' '), segments, words };
}

const timestamp = (seconds: number, separator: string) => {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
};

export function mockSubtitles(segments: MockSegment[], kind: 'srt' | 'vtt'): string {
  if (kind === 'srt')
    return segments
      .map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text.trim()}\n`)
      .join('\n');
  return `WEBVTT\n\n${segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text.trim()}\n`).join('\n')}`;
}
