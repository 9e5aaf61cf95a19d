import { billedDuration } from './transcription-result';
import type { UpstreamTranscription } from './transcription-upstream';

describe('billedDuration', () => {
  const wav = { lower: 2, upper: 2 };
  const mp3 = { lower: 0.4, upper: 16 };

  it.each<[string, Partial<UpstreamTranscription>, { lower: number; upper: number }, number]>([
    ["the provider's duration", { duration: 1.5 }, mp3, 1.5],
    ["the provider's usage seconds without a duration", { usage: { type: 'duration', seconds: 3 } }, mp3, 3],
    ['at most what the file can hold, when the provider reports more', { duration: 32_000 }, wav, 2],
    ['the shortest the file can be when the provider reports nothing', {}, mp3, 0.4],
    ['the exact length when the provider reports nothing', {}, wav, 2],
    ['the shortest the file can be for a duration that is no number', { duration: Number.NaN }, mp3, 0.4],
    ['the shortest the file can be for a negative duration', { duration: -1 }, mp3, 0.4],
  ])('bills %s', (_label, upstream, duration, seconds) => {
    expect(billedDuration({ text: '', ...upstream }, duration)).toBe(seconds);
  });
});
