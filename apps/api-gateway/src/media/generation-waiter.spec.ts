import { EventEmitter } from 'node:events';
import {
  type AwaitMediaGenerationRequest,
  DomainError,
  MAX_AWAIT_MS,
  type MediaGeneration,
  type MediaGenerationStatus,
} from '@gw/contracts';
import { type RpcClient, type RpcCallOptions, UnansweredCallError } from '@gw/platform';
import type { Response } from 'express';
import { AWAIT_ANSWER_MARGIN_MS, GenerationWaiter } from './generation-waiter';
import { apiKeyPrincipal } from '@gw/testing';

const principal = apiKeyPrincipal();

const record = (status: MediaGenerationStatus): MediaGeneration => ({
  id: 'gen-1',
  object: 'media.generation',
  status,
  created: 1_763_830_000,
  model: 'demo/video',
});

/**
 * The media service's side of `await-generation`: the generation completes `completesAfterMs` from
 * now, and each call is answered at the latest after `answersWithinMs` (a state change answers early).
 */
class ScriptedMedia {
  readonly calls: Array<{ waitMs: number; timeoutMs?: number }> = [];
  failure: Error | null = null;
  private readonly completesAt: number;

  constructor(
    completesAfterMs: number,
    private readonly answersWithinMs = Infinity,
  ) {
    this.completesAt = Date.now() + completesAfterMs;
  }

  readonly rpc = {
    request: async (_contract: unknown, payload: AwaitMediaGenerationRequest, options: RpcCallOptions) => {
      this.calls.push({ waitMs: payload.waitMs, timeoutMs: options.timeoutMs });
      if (this.failure) throw this.failure;
      const untilDone = this.completesAt - Date.now();
      const blocksMs = Math.min(untilDone, payload.waitMs, this.answersWithinMs);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, blocksMs)).unref());
      return record(Date.now() >= this.completesAt ? 'completed' : 'processing');
    },
  } as unknown as RpcClient;
}

/** An HTTP response that a test can close as a leaving client does. */
function openResponse(): Response & { leave(): void } {
  const response = Object.assign(new EventEmitter(), { destroyed: false, writableEnded: false });
  return Object.assign(response, {
    leave() {
      response.destroyed = true;
      response.emit('close');
    },
  }) as unknown as Response & { leave(): void };
}

const waiter = (media: ScriptedMedia, syncWaitMs: number) =>
  new GenerationWaiter(media.rpc, { SYNC_WAIT_MS: syncWaitMs });

describe('GenerationWaiter', () => {
  it('answers a final record without asking again', async () => {
    const media = new ScriptedMedia(0);
    const done = await waiter(media, 1_000).untilFinal(principal, record('completed'), openResponse());
    expect(done.status).toBe('completed');
    expect(media.calls).toEqual([]);
  });

  it('asks for at most MAX_AWAIT_MS at a time, each call bounded a little beyond its wait', async () => {
    const media = new ScriptedMedia(0);
    await waiter(media, 120_000).untilFinal(principal, record('pending'), openResponse());
    expect(media.calls).toEqual([{ waitMs: MAX_AWAIT_MS, timeoutMs: MAX_AWAIT_MS + AWAIT_ANSWER_MARGIN_MS }]);
  });

  it('waits again until the generation is final', async () => {
    const media = new ScriptedMedia(250, 100);
    const done = await waiter(media, 5_000).untilFinal(principal, record('pending'), openResponse());
    expect(done.status).toBe('completed');
    expect(media.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('answers the record as it stands once SYNC_WAIT_MS has passed', async () => {
    const media = new ScriptedMedia(60_000);
    const started = Date.now();
    const done = await waiter(media, 300).untilFinal(principal, record('pending'), openResponse());
    expect(done.status).toBe('processing');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(media.calls.every((call) => call.waitMs <= 300)).toBe(true);
  });

  it('stops waiting at once when the client leaves, without a further call', async () => {
    const media = new ScriptedMedia(60_000);
    const response = openResponse();
    const started = Date.now();
    setTimeout(() => response.leave(), 100);
    const done = await waiter(media, 30_000).untilFinal(principal, record('pending'), response);
    expect(done.status).toBe('pending');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(media.calls).toHaveLength(1);
  });

  it('ends with the record as last seen when the media service does not answer', async () => {
    const media = new ScriptedMedia(60_000);
    media.failure = new UnansweredCallError('The service behind media.v1.await-generation is not available');
    const done = await waiter(media, 5_000).untilFinal(principal, record('processing'), openResponse());
    expect(done).toEqual(record('processing'));
  });

  it("passes on the media service's own refusal", async () => {
    const media = new ScriptedMedia(60_000);
    media.failure = new DomainError('not_found', 'Generation gen-1 not found', 'id');
    await expect(
      waiter(media, 5_000).untilFinal(principal, record('pending'), openResponse()),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
