import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Rgb } from './encoders/solid-image';
import { MOCK_MEDIA_SETTINGS, type MockMediaSettings } from './mock-media-settings';

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface VideoJob {
  id: string;
  model: string;
  prompt: string;
  width: number;
  height: number;
  seconds: number;
  colour: Rgb;
  createdAtMs: number;
  /** From creation to `completed` (or `failed`). */
  durationMs: number;
  fails: boolean;
}

export interface VideoJobState {
  status: VideoStatus;
  progress: number;
  finishedAtMs: number | null;
}

/** The share of a job's time it spends `queued` before it is `in_progress`. */
const QUEUED_SHARE = 0.25;
/** Jobs are a test double's memory: past this many, the oldest is forgotten. */
const MAX_JOBS = 10_000;

/**
 * The mock's video jobs, in memory. A job's state is worked out from the clock when it is read
 * (queued for the first quarter of its time, then in progress, then completed or failed), so
 * no timer runs for a job, however many wait.
 */
@Injectable()
export class MockVideoJobs {
  private readonly jobs = new Map<string, VideoJob>();

  constructor(@Inject(MOCK_MEDIA_SETTINGS) private readonly settings: MockMediaSettings) {}

  /** A job that takes `durationMs`, or the configured job time when that is 0. */
  create(job: Omit<VideoJob, 'id' | 'createdAtMs' | 'durationMs'>, durationMs: number): VideoJob {
    const created: VideoJob = {
      ...job,
      id: `video_${randomBytes(16).toString('hex')}`,
      createdAtMs: Date.now(),
      durationMs: durationMs > 0 ? durationMs : this.settings.MOCK_MEDIA_JOB_MS,
    };
    this.jobs.set(created.id, created);
    if (this.jobs.size > MAX_JOBS) this.jobs.delete(this.jobs.keys().next().value as string);
    return created;
  }

  find(id: string): VideoJob | undefined {
    return this.jobs.get(id);
  }

  delete(id: string): void {
    this.jobs.delete(id);
  }
}

export function videoJobState(job: VideoJob, nowMs: number): VideoJobState {
  const elapsed = nowMs - job.createdAtMs;
  if (elapsed >= job.durationMs) {
    return {
      status: job.fails ? 'failed' : 'completed',
      progress: 100,
      finishedAtMs: job.createdAtMs + job.durationMs,
    };
  }
  if (elapsed < job.durationMs * QUEUED_SHARE) return { status: 'queued', progress: 0, finishedAtMs: null };
  return {
    status: 'in_progress',
    progress: Math.floor((100 * elapsed) / job.durationMs),
    finishedAtMs: null,
  };
}
