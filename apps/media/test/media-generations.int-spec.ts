import { randomUUID } from 'node:crypto';
import { type ApiKeyPrincipal, MediaContracts, type MediaResultFile } from '@gw/contracts';
import { expectEventually } from '@gw/testing';
import { MediaTestApp } from './media-test-app';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('media generations over NATS with billing, storage and mock-upstream', () => {
  let app: MediaTestApp;
  let principal: ApiKeyPrincipal;

  const create = (
    model: string,
    params: Record<string, unknown>,
    surface: 'media' | 'images' | 'speech' = 'media',
    who = principal,
  ) =>
    app.rpc.request(MediaContracts.createGeneration, { principal: who, model, params, async: true, surface });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: { code: string; status: number; param?: string | null; message: string }) => ({
        code: err.code,
        status: err.status,
        param: err.param ?? null,
        message: err.message,
      }),
    );

  beforeAll(async () => {
    app = await MediaTestApp.start({ mockJobMs: 500 });
    principal = await app.customer('1000.00');
  });

  afterAll(async () => {
    await app.stop();
  });

  it('generates images: pending at once, then completed with stored files, charged once and recorded as image/media', async () => {
    const before = await app.balance(principal.organizationId);
    const pending = await create(
      'demo/image',
      { prompt: 'a red fox', n: 3, quality: 'medium', style: 'vivid' },
      'images',
    );
    expect(pending).toMatchObject({ object: 'media.generation', status: 'pending', model: 'demo/image' });
    expect(pending.warnings).toEqual(['Parameter style is not supported by this model and was ignored']);

    const done = await app.rpc.request(MediaContracts.awaitGeneration, {
      principal,
      id: pending.id,
      waitMs: 10_000,
    });
    expect(done).toMatchObject({
      status: 'completed',
      usage: { output_units: 3, cost_rub: 24, cost: 24 },
      warnings: ['Parameter style is not supported by this model and was ignored'],
    });
    const files = done.data as MediaResultFile[];
    expect(files).toHaveLength(3);
    expect(files[0]).toMatchObject({ content_type: 'image/png', url: expect.stringMatching(/^http/) });
    const fetched = Buffer.from(await (await fetch(files[0].url)).arrayBuffer());
    expect(fetched.subarray(0, 8)).toEqual(PNG_SIGNATURE);

    const b64 = await app.rpc.request(MediaContracts.imageResult, {
      principal,
      id: pending.id,
      responseFormat: 'b64_json',
    });
    expect(b64.data).toHaveLength(3);
    expect(Buffer.from(b64.data[0].b64_json as string, 'base64').subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(b64.usage).toMatchObject({ cost_rub: 24, cost: 24, input_tokens: 3 });
    // The provider's own count: 1056 tokens a medium 1024x1024 image, three of them, and the prompt's three.
    expect(b64.usage?.total_tokens).toBe(3 * 1056 + 3);
    const urls = await app.rpc.request(MediaContracts.imageResult, {
      principal,
      id: pending.id,
      responseFormat: 'url',
    });
    expect(urls.data[0].url).toMatch(/^http/);

    expect(await app.history(principal, pending.id)).toMatchObject({
      requestType: 'image',
      apiType: 'media',
      responseMode: 'async',
      status: 'completed',
      clientCost: '24.00000000',
      finalEndpointSlug: 'Mock Alpha',
    });
    await expectEventually(async () =>
      expect(await app.balance(principal.organizationId)).toBe(dec(before, -24)),
    );
  });

  it('makes a video asynchronously, billed per second by its resolution tier', async () => {
    const before = await app.balance(principal.organizationId);
    const pending = await create('demo/video', { prompt: 'waves', duration: 4, resolution: '1080p' });
    const done = await app.final(principal, pending.id);
    expect(done).toMatchObject({
      status: 'completed',
      usage: { duration_seconds: 4, cost_rub: 80 },
      data: { content_type: 'video/mp4', url: expect.any(String) },
    });
    expect(await app.history(principal, pending.id)).toMatchObject({
      requestType: 'video',
      clientCost: '80.00000000',
    });
    await expectEventually(async () =>
      expect(await app.balance(principal.organizationId)).toBe(dec(before, -80)),
    );
  });

  it('speaks: the audio file is stored and located by its key, billed per character', async () => {
    const pending = await create('demo/tts', { prompt: 'Hello there', output_format: 'wav' }, 'speech');
    const done = await app.final(principal, pending.id);
    expect(done).toMatchObject({
      status: 'completed',
      usage: { input_units: 11 },
      data: { content_type: 'audio/wav' },
    });
    const { files } = await app.rpc.request(MediaContracts.generationFiles, { principal, id: pending.id });
    expect(files).toEqual([
      expect.objectContaining({
        contentType: 'audio/wav',
        objectKey: expect.stringContaining(principal.organizationId),
      }),
    ]);
    const stored = await app.blobs.get(files[0].objectKey);
    expect(stored?.size).toBe(files[0].size);
    stored?.body.destroy();
    expect(await app.history(principal, pending.id)).toMatchObject({
      requestType: 'audio',
      apiType: 'media',
    });
  });

  it('fails a generation the provider refuses with error.code BAD_GATEWAY, at zero cost', async () => {
    const before = await app.balance(principal.organizationId);
    const pending = await create('demo/image', { prompt: 'broken [[fail:502]]' });
    const done = await app.final(principal, pending.id);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: 'BAD_GATEWAY', message: expect.any(String) },
    });
    expect(done.usage).toBeUndefined();
    expect(await app.history(principal, pending.id)).toMatchObject({
      status: 'failed',
      clientCost: '0.00000000',
    });
    expect(await app.balance(principal.organizationId)).toBe(before);
  });

  it('fails a video whose provider job fails, at zero cost', async () => {
    const pending = await create('demo/video', { prompt: 'doomed [[job-fail]]', duration: 3 });
    expect(await app.final(principal, pending.id)).toMatchObject({
      status: 'failed',
      error: { code: 'GENERATION_FAILED' },
    });
    expect(await app.history(principal, pending.id)).toMatchObject({
      status: 'failed',
      clientCost: '0.00000000',
    });
  });

  it('cancels a processing generation: cancelled, hold released, history isCancelled', async () => {
    const before = await app.balance(principal.organizationId);
    const pending = await create('demo/video', { prompt: 'slow [[delay:20000]]', duration: 10 });
    const cancelled = await app.rpc.request(MediaContracts.cancelGeneration, { principal, id: pending.id });
    expect(cancelled.status).toBe('cancelled');
    expect(await app.history(principal, pending.id)).toMatchObject({
      isCancelled: true,
      clientCost: '0.00000000',
    });
    await expectEventually(async () => expect(await app.balance(principal.organizationId)).toBe(before));
    // A final generation answers as it stands.
    expect(
      await app.rpc.request(MediaContracts.cancelGeneration, { principal, id: pending.id }),
    ).toMatchObject({
      status: 'cancelled',
    });
  });

  it('runs operations: extend makes a new generation and leaves the original; upscale answers a url', async () => {
    const original = await app.final(
      principal,
      (await create('demo/video', { prompt: 'a road', duration: 3 })).id,
    );
    const extended = await app.rpc.request(MediaContracts.runOperation, {
      principal,
      id: original.id,
      operation: 'extend',
      params: { prompt: 'further', duration: 4, seeds: 3 },
      async: true,
    });
    expect(extended).toMatchObject({ status: 'pending', model: 'demo/video' });
    expect(extended.id).not.toBe(original.id);
    expect(await app.final(principal, extended.id)).toMatchObject({
      status: 'completed',
      usage: { cost_rub: 40 },
    });
    // The original is unchanged (its url is signed afresh on every read).
    expect(await app.rpc.request(MediaContracts.getGeneration, { principal, id: original.id })).toMatchObject(
      {
        ...original,
        data: { ...(original.data as MediaResultFile), url: expect.any(String) },
      },
    );

    const upscale = await app.rpc.request(MediaContracts.runOperation, {
      principal,
      id: original.id,
      operation: 'upscale_1080p',
      params: {},
      async: false,
    });
    expect(await app.final(principal, upscale.id)).toMatchObject({
      status: 'completed',
      data: { url: expect.any(String) },
      usage: { cost_rub: 15 },
    });
    expect(await app.history(principal, upscale.id)).toMatchObject({
      responseMode: 'sync',
      clientCost: '15.00000000',
    });
  });

  it('refuses operations the model does not list (400), on an unknown original (404) or an unfinished one (409)', async () => {
    const image = await app.final(principal, (await create('demo/image', { prompt: 'a cat' })).id);
    const operation = (id: string, op: 'extend' | 'upscale_4k', params: Record<string, unknown> = {}) =>
      refusal(
        app.rpc.request(MediaContracts.runOperation, { principal, id, operation: op, params, async: true }),
      );
    expect(await operation(image.id, 'upscale_4k')).toMatchObject({
      code: 'invalid_request',
      param: 'operation',
    });
    expect(await operation(`gen-${randomUUID()}`, 'upscale_4k')).toMatchObject({
      code: 'not_found',
      status: 404,
    });
    const running = await create('demo/video', { prompt: 'long [[delay:20000]]' });
    expect(await operation(running.id, 'extend', { prompt: 'x' })).toMatchObject({
      code: 'conflict',
      status: 409,
    });
    const video = await app.final(
      principal,
      (await create('demo/video', { prompt: 'short', duration: 3 })).id,
    );
    expect(await operation(video.id, 'extend', { prompt: 'x', duration: 11 })).toMatchObject({
      code: 'invalid_request',
      param: 'params.duration',
      message: 'duration must be at most 10',
    });
    await app.rpc.request(MediaContracts.cancelGeneration, { principal, id: running.id });
  });

  it('answers 400 naming the parameter, 400 on a model that is not a media model, 404 on another organization', async () => {
    expect(await refusal(create('demo/image', { prompt: 'x'.repeat(32_001) }, 'images'))).toEqual({
      code: 'invalid_request',
      status: 400,
      param: 'prompt',
      message: 'prompt must be at most 32000 characters',
    });
    expect(await refusal(create('demo/image-classic', { prompt: 'a', n: 2 }))).toMatchObject({
      param: 'params.n',
    });
    expect(await refusal(create('demo/chat', { prompt: 'a' }))).toMatchObject({
      code: 'invalid_model',
      param: 'model',
    });
    expect(await refusal(create('demo/video', { prompt: 'a' }, 'speech'))).toMatchObject({
      code: 'invalid_model',
    });
    expect(await refusal(create('demo/video', { prompt: 'a' }, 'images'))).toMatchObject({
      code: 'invalid_model',
    });
    const mine = await create('demo/image', { prompt: 'mine' });
    const stranger = await app.customer('10.00');
    expect(
      await refusal(app.rpc.request(MediaContracts.getGeneration, { principal: stranger, id: mine.id })),
    ).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('refuses a generation the balance cannot pay for with 402, holding nothing', async () => {
    const poor = await app.customer('10.00');
    expect(await refusal(create('demo/video', { prompt: 'too dear' }, 'media', poor))).toMatchObject({
      code: 'insufficient_balance',
      status: 402,
    });
    expect(Number(await app.balance(poor.organizationId))).toBe(10);
  });

  it('answers a create asked again with the same generation id with the first generation, held and charged once', async () => {
    const customer = await app.customer('100.00');
    const request = {
      principal: customer,
      generationId: `gen-${randomUUID()}`,
      model: 'demo/image',
      params: { prompt: 'asked twice' },
      async: true,
      surface: 'images' as const,
    };
    const first = await app.rpc.request(MediaContracts.createGeneration, request);
    const again = await app.rpc.request(MediaContracts.createGeneration, request);
    expect(again.id).toBe(first.id);
    expect(await app.final(customer, first.id)).toMatchObject({ status: 'completed' });
    expect(await app.history(customer, first.id)).toMatchObject({ clientCost: '4.00000000' });
    await expectEventually(async () => expect(Number(await app.balance(customer.organizationId))).toBe(96));
  });

  it('answers an await after waitMs with the generation as it stands', async () => {
    const pending = await create('demo/video', { prompt: 'takes a while [[delay:5000]]' });
    const started = Date.now();
    const waited = await app.rpc.request(MediaContracts.awaitGeneration, {
      principal,
      id: pending.id,
      waitMs: 300,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(['pending', 'processing']).toContain(waited.status);
    await app.rpc.request(MediaContracts.cancelGeneration, { principal, id: pending.id });
  });
});

/** `amount` moved by `delta`, in billing's decimal form. */
function dec(amount: string, delta: number): string {
  const places = amount.split('.')[1]?.length ?? 0;
  return (Number(amount) + delta).toFixed(places);
}
