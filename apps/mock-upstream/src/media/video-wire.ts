import { type VideoJob, videoJobState } from './mock-video-jobs.service';

/** How long a finished video's download is promised for, as OpenAI's `expires_at` says. */
const ASSET_TTL_SECONDS = 3600;
const MAX_SECONDS = 20;

/** OpenAI's video object, as the job stands at `nowMs`. */
export function videoObject(job: VideoJob, nowMs: number): Record<string, unknown> {
  const { status, progress, finishedAtMs } = videoJobState(job, nowMs);
  const unixSeconds = (ms: number) => Math.floor(ms / 1000);
  const finishedAt = finishedAtMs === null ? null : unixSeconds(finishedAtMs);
  return {
    id: job.id,
    object: 'video',
    model: job.model,
    status,
    progress,
    created_at: unixSeconds(job.createdAtMs),
    completed_at: finishedAt,
    expires_at: status === 'completed' && finishedAt !== null ? finishedAt + ASSET_TTL_SECONDS : null,
    error:
      status === 'failed'
        ? { code: 'video_generation_failed', message: 'The mock failed this job, as its prompt asked' }
        : null,
    prompt: job.prompt,
    remixed_from_video_id: null,
    seconds: String(job.seconds),
    size: `${job.width}x${job.height}`,
  };
}

/** Whole seconds from 1 to 20, as a number or the string OpenAI's SDK sends. */
export function readSeconds(value: unknown): number | null {
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_SECONDS
    ? seconds
    : null;
}

/** `video` as OpenAI's extensions take it: `{id}` in JSON (`video[id]` in a form) or the id itself. */
export function videoReference(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const id = (value as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : null;
}

export const UPSCALE_SHORT_SIDE = { '1080p': 1080, '4k': 2160 } as const;
export type UpscaleResolution = keyof typeof UPSCALE_SHORT_SIDE;

/** The source's aspect ratio with its short side at the target's, both sides even. */
export function upscaledSize(
  width: number,
  height: number,
  resolution: UpscaleResolution,
): { width: number; height: number } {
  const shortSide = UPSCALE_SHORT_SIDE[resolution];
  const scale = shortSide / Math.min(width, height);
  const even = (side: number) => 2 * Math.round((side * scale) / 2);
  return width <= height
    ? { width: shortSide, height: even(height) }
    : { width: even(width), height: shortSide };
}
