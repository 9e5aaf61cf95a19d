import type { TranscriptionSegment } from '@gw/contracts';

type Timed = Pick<TranscriptionSegment, 'start' | 'end' | 'text'>;

/** `hh:mm:ss<sep>mmm`, rounded to the millisecond. */
export function timestamp(seconds: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(seconds * 1000));
  const ms = total % 1000;
  const s = Math.floor(total / 1000) % 60;
  const m = Math.floor(total / 60_000) % 60;
  const h = Math.floor(total / 3_600_000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms, 3)}`;
}

/** SubRip: numbered cues from 1, comma before the milliseconds, a blank line after each cue. */
export function renderSrt(segments: Timed[]): string {
  return segments
    .map(
      (segment, i) =>
        `${i + 1}\n${timestamp(segment.start, ',')} --> ${timestamp(segment.end, ',')}\n${segment.text.trim()}\n`,
    )
    .join('\n');
}

/** WebVTT: the `WEBVTT` header, dot before the milliseconds. */
export function renderVtt(segments: Timed[]): string {
  const cues = segments.map(
    (segment) =>
      `${timestamp(segment.start, '.')} --> ${timestamp(segment.end, '.')}\n${segment.text.trim()}\n`,
  );
  return ['WEBVTT\n', ...cues].join('\n');
}
