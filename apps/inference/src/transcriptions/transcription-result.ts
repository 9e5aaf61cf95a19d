import type Decimal from 'decimal.js';
import type {
  TranscriptionParams,
  TranscriptionReply,
  TranscriptionResult,
  TranscriptionUsage,
} from '@gw/contracts';
import { costNumber } from '@gw/pricing';
import type { AudioDuration } from './audio-duration';
import { renderSrt, renderVtt } from './subtitles';
import type { UpstreamTranscription } from './transcription-upstream';

/**
 * The seconds billed: the provider's figure where it reports one, but never more than the file can
 * hold (a provider misreading a header must not bill for it); otherwise the shortest the file can
 * be, which is its exact length where that is known (never charge for more than was surely heard).
 */
export function billedDuration(
  upstream: UpstreamTranscription,
  duration: Pick<AudioDuration, 'lower' | 'upper'>,
): number {
  const reported = upstream.duration ?? upstream.usage?.seconds;
  if (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0)
    return Math.min(reported, duration.upper);
  return duration.lower;
}

export function transcriptionUsage(durationSeconds: number, cost: Decimal): TranscriptionUsage {
  const rub = costNumber(cost);
  return { durationSeconds, cost: rub, cost_rub: rub };
}

/** The client's response_format rendered from the provider's detailed answer. */
export function transcriptionReply(
  id: string,
  model: string,
  params: TranscriptionParams,
  upstream: UpstreamTranscription,
  usage: TranscriptionUsage,
): TranscriptionReply {
  const format = params.response_format ?? 'json';
  const segments = upstream.segments ?? [];
  switch (format) {
    case 'text':
      return { id, contentType: 'text/plain', body: upstream.text };
    case 'srt':
      return { id, contentType: 'application/x-subrip', body: renderSrt(segments) };
    case 'vtt':
      return { id, contentType: 'text/vtt', body: renderVtt(segments) };
    case 'verbose_json': {
      const wantsWords = params.timestamp_granularities?.includes('word') ?? false;
      const wantsSegments =
        !params.timestamp_granularities?.length || params.timestamp_granularities.includes('segment');
      const result: TranscriptionResult = {
        text: upstream.text,
        language: upstream.language,
        duration: usage.durationSeconds,
        ...(wantsSegments ? { segments } : {}),
        ...(wantsWords ? { words: upstream.words ?? [] } : {}),
        model,
        usage,
      };
      return { id, contentType: 'application/json', result };
    }
    case 'diarized_json':
      return {
        id,
        contentType: 'application/json',
        result: { text: upstream.text, duration: usage.durationSeconds, segments, model, usage },
      };
    case 'json':
      return {
        id,
        contentType: 'application/json',
        result: {
          text: upstream.text,
          ...(upstream.logprobs ? { logprobs: upstream.logprobs } : {}),
          model,
          usage,
        },
      };
  }
}
