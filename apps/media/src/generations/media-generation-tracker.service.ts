import { Inject, Injectable } from '@nestjs/common';
import {
  type CancelMediaGenerationRequest,
  DomainError,
  FINAL_GENERATION_STATUSES,
  type GeneratedMediaFile,
  type ImageGenerationResult,
  type ImageResponseFormat,
  type MediaGeneration,
  type Principal,
} from '@gw/contracts';
import { MediaHolds } from '../money/media-holds.service';
import { MediaResults } from '../results/media-results.service';
import { GenerationEndings } from './generation-endings';
import type { MediaGenerationEntity } from './media-generation.entity';
import { MediaGenerationRepository } from './media-generation.repository';
import { completedGeneration, ownedGeneration } from './owned-generation';

export const MEDIA_AWAIT_POLL = Symbol('MEDIA_AWAIT_POLL');

/**
 * What a client does with a generation it made: reads it, awaits it with a bound, cancels it, and
 * reads its results back as the images API and the speech route answer them.
 */
@Injectable()
export class MediaGenerationTracker {
  constructor(
    private readonly generations: MediaGenerationRepository,
    private readonly holds: MediaHolds,
    private readonly results: MediaResults,
    private readonly endings: GenerationEndings,
    /** How often a wait for a generation reads its record (it may end on another replica). */
    @Inject(MEDIA_AWAIT_POLL) private readonly awaitPollMs: number,
  ) {}

  async get(principal: Principal, id: string): Promise<MediaGeneration> {
    return this.results.view(await ownedGeneration(this.generations, principal, id));
  }

  /** The generation once it is final, or as it stands after `waitMs`, whichever comes first; on any replica. */
  async await(principal: Principal, id: string, waitMs: number): Promise<MediaGeneration> {
    const until = Date.now() + waitMs;
    let row = await ownedGeneration(this.generations, principal, id);
    while (!isFinal(row) && Date.now() < until) {
      await this.endings.wait(id, Math.min(this.awaitPollMs, until - Date.now()));
      row = await ownedGeneration(this.generations, principal, id);
    }
    return this.results.view(row);
  }

  /**
   * A pending or processing generation ends `cancelled` and its hold is released. The provider's
   * job is left to finish: the OpenAI video wire deletes only finished videos. A final generation
   * answers as it stands.
   */
  async cancel(request: CancelMediaGenerationRequest): Promise<MediaGeneration> {
    const row = await ownedGeneration(this.generations, request.principal, request.id);
    if (isFinal(row)) return this.results.view(row);
    const cancelled = await this.generations.finish(row.id, null, { status: 'cancelled', cost: '0' });
    if (!cancelled)
      return this.results.view(await ownedGeneration(this.generations, request.principal, request.id));
    this.endings.ended(cancelled.id);
    await this.holds.settle(cancelled);
    return this.results.view(cancelled);
  }

  async imageResult(
    principal: Principal,
    id: string,
    format: ImageResponseFormat,
  ): Promise<ImageGenerationResult> {
    const row = await completedGeneration(this.generations, principal, id);
    const shown = await this.results.shown(row.files);
    const data = await Promise.all(
      row.files.map(async (file, index) => {
        const revised = file.revisedPrompt !== undefined ? { revised_prompt: file.revisedPrompt } : {};
        if (format === 'url') return { url: shown[index].url, ...revised };
        const b64 = await this.results.base64(file);
        if (b64 === null)
          throw new DomainError('not_found', `The images of generation ${id} have expired`, 'id');
        return { b64_json: b64, ...revised };
      }),
    );
    return {
      created: Math.floor(row.createdAt.getTime() / 1000),
      data,
      ...(row.usage ? { usage: row.usage } : {}),
    };
  }

  async files(principal: Principal, id: string): Promise<{ files: GeneratedMediaFile[] }> {
    const row = await completedGeneration(this.generations, principal, id);
    return { files: await this.results.located(row.files) };
  }
}

function isFinal(row: MediaGenerationEntity): boolean {
  return (FINAL_GENERATION_STATUSES as readonly string[]).includes(row.status);
}
