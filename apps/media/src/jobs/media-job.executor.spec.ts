import { join } from 'node:path';
import { loadCatalogue, ModelCatalogue } from '@gw/catalogue';
import { UpstreamFailure } from '@gw/paid-generation';
import type { MediaGenerationEntity } from '../generations/media-generation.entity';
import type { MediaGenerationRepository } from '../generations/media-generation.repository';
import { type MediaProviderClient, ProviderUnreachable } from '../provider/media-provider.client';
import type { MediaResults } from '../results/media-results.service';
import { MediaJobExecutor } from './media-job.executor';

const catalogue = new ModelCatalogue(
  loadCatalogue(join(__dirname, '../../../../config/catalogue.demo.json'), {
    MOCK_UPSTREAM_URL: 'http://127.0.0.1:4010',
    MOCK_UPSTREAM_API_KEY: 'key',
  }),
);

/** A provider whose every call is recorded and answered by `answer`. */
function provider(answer: (call: string) => unknown) {
  const calls: string[] = [];
  const call = (name: string) => async () => {
    calls.push(name);
    const result = answer(name);
    if (result instanceof Error) throw result;
    return result;
  };
  const client = {
    generateImages: call('generateImages'),
    speak: call('speak'),
    createVideo: call('createVideo'),
    extendVideo: call('extendVideo'),
    upscaleVideo: call('upscaleVideo'),
    retrieveVideo: call('retrieveVideo'),
    downloadVideo: call('downloadVideo'),
  };
  return { calls, client: client as unknown as MediaProviderClient };
}

function job(overrides: Partial<MediaGenerationEntity>): MediaGenerationEntity {
  return {
    id: 'gen-1',
    organizationId: 'org',
    model: 'demo/video',
    requestType: 'video',
    params: { prompt: 'a', duration: 3 },
    operation: null,
    parentId: null,
    providerJobId: null,
    submittedAt: null,
    polls: 0,
    retries: 0,
    externalUserId: null,
    ...overrides,
  } as MediaGenerationEntity;
}

function executor(client: MediaProviderClient) {
  const results = { store: async () => ({}) } as unknown as MediaResults;
  const generations = { findOne: async () => null } as unknown as MediaGenerationRepository;
  return new MediaJobExecutor(catalogue, client, results, generations, {
    poll: { firstDelayMs: 100, maxDelayMs: 1_000 },
    maxRetries: 2,
  });
}

const submitted = async () => true;

describe('MediaJobExecutor: a create call is never made twice', () => {
  it.each([
    ['an image', job({ model: 'demo/image', requestType: 'image', submittedAt: new Date() })],
    ['speech', job({ model: 'demo/tts', requestType: 'audio', submittedAt: new Date() })],
    ['a video not yet named by the provider', job({ submittedAt: new Date() })],
  ])('fails %s whose create call was sent and never answered, without calling again', async (_, found) => {
    const { calls, client } = provider(() => ({}));
    expect(await executor(client).step(found, submitted)).toMatchObject({
      kind: 'failed',
      error: { code: 'INTERRUPTED' },
    });
    expect(calls).toEqual([]);
  });

  it('retries a create call the provider never received, clearing the mark that it was sent', async () => {
    const { client } = provider(() => new ProviderUnreachable('connect ECONNREFUSED'));
    expect(await executor(client).step(job({}), submitted)).toMatchObject({
      kind: 'wait',
      changes: { retries: 1, submittedAt: null },
    });
  });

  it('fails a create call the provider answered with 502: it may have started a job', async () => {
    const { client } = provider(() => new UpstreamFailure('status', 'Upstream answered 502', 502));
    expect(await executor(client).step(job({}), submitted)).toMatchObject({
      kind: 'failed',
      error: { code: 'BAD_GATEWAY', message: 'The provider failed (HTTP 502)' },
    });
  });

  it('does nothing when the job was taken from it before the call (cancelled, or its lease lost)', async () => {
    const { calls, client } = provider(() => ({}));
    expect(await executor(client).step(job({}), async () => false)).toBeNull();
    expect(calls).toEqual([]);
  });
});

describe('MediaJobExecutor: asking about a video is safe to repeat', () => {
  const polling = job({ providerJobId: 'video_1', submittedAt: new Date() });

  it('waits longer after each poll of a job still running', async () => {
    const { client } = provider(() => ({ id: 'video_1', status: 'in_progress', error: null }));
    const step = await executor(client).step({ ...polling, polls: 3 }, submitted);
    expect(step).toMatchObject({ kind: 'wait', changes: { polls: 4, providerJobId: 'video_1' } });
    expect(step?.kind === 'wait' ? step.delayMs : 0).toBeGreaterThan(900);
  });

  it('retries a poll that failed, up to the limit, then fails BAD_GATEWAY', async () => {
    const { client } = provider(() => new UpstreamFailure('status', 'Upstream answered 503', 500));
    expect(await executor(client).step(polling, submitted)).toMatchObject({
      kind: 'wait',
      changes: { retries: 1 },
    });
    expect(await executor(client).step({ ...polling, retries: 2 }, submitted)).toMatchObject({
      kind: 'failed',
      error: { code: 'BAD_GATEWAY' },
    });
  });

  it("fails with the provider's reason when its job failed", async () => {
    const { client } = provider(() => ({
      id: 'video_1',
      status: 'failed',
      error: { code: 'x', message: 'Moderation blocked it' },
    }));
    expect(await executor(client).step(polling, submitted)).toMatchObject({
      kind: 'failed',
      error: { code: 'GENERATION_FAILED', message: 'Moderation blocked it' },
    });
  });
});
