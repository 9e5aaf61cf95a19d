import { Inject, Injectable } from '@nestjs/common';
import { ModelCatalogue, type ProviderRoute } from '@gw/catalogue';
import { Readable } from 'node:stream';
import type { MediaGenerationEntity, StoredResultFile } from '../generations/media-generation.entity';
import { MediaGenerationRepository } from '../generations/media-generation.repository';
import {
  type ImageTokens,
  MediaProviderClient,
  type ProviderVideoJob,
  ProviderUnreachable,
} from '../provider/media-provider.client';
import { numberParam, textParam } from '../params/media-params';
import { MediaResults, type ProducedFile } from '../results/media-results.service';
import { backoffDelayMs, type BackoffSettings } from './job-backoff';
import {
  isUpstreamFailure,
  JOB_ERRORS,
  type JobError,
  providerJobError,
  providerJobFailed,
} from './job-failure';

export const MEDIA_JOB_STEPS = Symbol('MEDIA_JOB_STEPS');

export interface JobStepSettings {
  /** The provider's video jobs are asked about at these intervals. */
  poll: BackoffSettings;
  /** How often a safe step (a status poll, a download, a call that never reached the provider) is tried again. */
  maxRetries: number;
}

/** What one step of a job ends in: the job waits (with what changed), completes or fails. */
export type JobStep =
  | {
      kind: 'wait';
      delayMs: number;
      changes: Partial<Pick<MediaGenerationEntity, 'providerJobId' | 'polls' | 'retries' | 'submittedAt'>>;
    }
  | { kind: 'completed'; files: StoredResultFile[]; tokens: ImageTokens | null }
  | { kind: 'failed'; error: JobError };

/** Marks the moment before a create call: a job that finds it set never makes the call again. */
export type MarkSubmitted = () => Promise<boolean>;

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };
/** The OpenAI speech wire's name of each catalogue output format. */
const SPEECH_FORMATS: Record<string, string> = { mp3: 'mp3', wav: 'wav', ogg: 'opus' };
const VIDEO_SIDES: Record<string, [number, number]> = { '720p': [1280, 720], '1080p': [1920, 1080] };

/**
 * One step of a media job against the provider's OpenAI media wire. Images and speech are one call
 * (and their files); a video is created (or extended, or upscaled), asked about with backoff until
 * it ends, then downloaded. A create call is made once: a job that finds it was marked sent without
 * an answer fails rather than risk a second provider job, unless the provider was never reached.
 */
@Injectable()
export class MediaJobExecutor {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly provider: MediaProviderClient,
    private readonly results: MediaResults,
    private readonly generations: MediaGenerationRepository,
    @Inject(MEDIA_JOB_STEPS) private readonly settings: JobStepSettings,
  ) {}

  async step(job: MediaGenerationEntity, markSubmitted: MarkSubmitted): Promise<JobStep | null> {
    const route = this.catalogue.find(job.model)?.routes[0];
    if (!route)
      return {
        kind: 'failed',
        error: { code: 'INVALID_MODEL', message: `The model ${job.model} is no longer served` },
      };
    try {
      if (job.requestType === 'video') return await this.videoStep(job, route, markSubmitted);
      if (job.submittedAt !== null) return { kind: 'failed', error: JOB_ERRORS.interrupted };
      if (!(await markSubmitted())) return null;
      if (job.requestType === 'audio') return await this.stored(job, await this.speech(job, route));
      const { images, tokens } = await this.images(job, route);
      return await this.stored(job, images, tokens);
    } catch (err) {
      return this.afterFailure(job, err, job.requestType === 'video' && job.providerJobId !== null);
    }
  }

  private async images(
    job: MediaGenerationEntity,
    route: ProviderRoute,
  ): Promise<{ images: ProducedFile[]; tokens: ImageTokens | null }> {
    const format = textParam(job.params, 'output_format', 'png');
    const answer = await this.provider.generateImages(route, job.params, format);
    const images = answer.images.map((image) => ({
      body: Readable.from([image.bytes]),
      contentType: IMAGE_TYPES[format] ?? 'image/png',
      ...(image.revisedPrompt !== undefined ? { revisedPrompt: image.revisedPrompt } : {}),
    }));
    return { images, tokens: answer.tokens };
  }

  private async speech(job: MediaGenerationEntity, route: ProviderRoute): Promise<ProducedFile[]> {
    const format = SPEECH_FORMATS[textParam(job.params, 'output_format', 'mp3')] ?? 'mp3';
    return [await this.provider.speak(route, job.params, format)];
  }

  private async videoStep(
    job: MediaGenerationEntity,
    route: ProviderRoute,
    markSubmitted: MarkSubmitted,
  ): Promise<JobStep | null> {
    if (job.providerJobId === null) {
      if (job.submittedAt !== null) return { kind: 'failed', error: JOB_ERRORS.interrupted };
      const source = job.parentId ? await this.generations.findOne(job.organizationId, job.parentId) : null;
      if (job.parentId && !source?.providerJobId) return { kind: 'failed', error: JOB_ERRORS.sourceGone };
      if (!(await markSubmitted())) return null;
      const created = await this.createVideo(job, route, source?.providerJobId ?? null);
      return this.waitFor(created, 0);
    }
    const video = await this.provider.retrieveVideo(route, job.providerJobId);
    if (video.status === 'failed') return { kind: 'failed', error: providerJobFailed(video.error) };
    if (video.status !== 'completed') return this.waitFor(video, job.polls + 1);
    const download = await this.provider.downloadVideo(route, job.providerJobId);
    return this.stored(job, [download]);
  }

  private createVideo(
    job: MediaGenerationEntity,
    route: ProviderRoute,
    sourceId: string | null,
  ): Promise<ProviderVideoJob> {
    const { params } = job;
    const prompt = textParam(params, 'prompt');
    const seconds = numberParam(params, 'duration', 5);
    if (job.operation === null || sourceId === null) {
      return this.provider.createVideo(route, prompt, seconds, videoSize(params));
    }
    switch (job.operation) {
      case 'extend':
        return this.provider.extendVideo(route, sourceId, prompt, seconds);
      case 'upscale_1080p':
        return this.provider.upscaleVideo(route, sourceId, '1080p');
      case 'upscale_4k':
        return this.provider.upscaleVideo(route, sourceId, '4k');
    }
  }

  private waitFor(video: ProviderVideoJob, polls: number): JobStep {
    return {
      kind: 'wait',
      delayMs: backoffDelayMs(this.settings.poll, polls),
      changes: { providerJobId: video.id, polls, retries: 0 },
    };
  }

  /** A file that cannot be stored fails the generation: it is never charged for what the client cannot get. */
  private async stored(
    job: MediaGenerationEntity,
    produced: ProducedFile[],
    tokens: ImageTokens | null = null,
  ): Promise<JobStep> {
    const files: StoredResultFile[] = [];
    for (const file of produced) {
      try {
        files.push(await this.results.store(job.organizationId, job.externalUserId, file));
      } catch {
        file.body.destroy();
        return { kind: 'failed', error: JOB_ERRORS.notStored };
      }
    }
    return { kind: 'completed', files, tokens };
  }

  /**
   * A failed call is tried again only where that cannot double the provider's work: asking about a
   * video job or downloading it (`safe`), or a create call that never reached the provider.
   */
  private afterFailure(job: MediaGenerationEntity, err: unknown, safe: boolean): JobStep {
    if (!isUpstreamFailure(err)) throw err;
    const retried = safe ? err.retryable : err instanceof ProviderUnreachable;
    if (!retried || job.retries >= this.settings.maxRetries) {
      return { kind: 'failed', error: providerJobError(err) };
    }
    return {
      kind: 'wait',
      delayMs: backoffDelayMs(this.settings.poll, job.retries),
      changes: { retries: job.retries + 1, ...(safe ? {} : { submittedAt: null }) },
    };
  }
}

/** The provider's `size` for a clip of the requested aspect ratio and resolution. */
export function videoSize(params: Record<string, unknown>): string {
  const [long, short] = VIDEO_SIDES[textParam(params, 'resolution', '720p')] ?? VIDEO_SIDES['720p'];
  switch (params['aspect_ratio']) {
    case '9:16':
      return `${short}x${long}`;
    case '1:1':
      return `${short}x${short}`;
    default:
      return `${long}x${short}`;
  }
}
