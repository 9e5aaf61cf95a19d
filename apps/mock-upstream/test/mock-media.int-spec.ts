import { type INestApplication } from '@nestjs/common';
import { expectEventually, silentLogger } from '@gw/testing';
import OpenAI from 'openai';
import { createMockUpstreamApp } from '../src/mock-upstream.module';
import { readJpegSize, readMp3, readMp4, readOggOpus, readPng, readWav, readWebp } from './media-files';

const JOB_MS = 1_200;
const auth = { authorization: 'Bearer test-key', 'content-type': 'application/json' };

/** Test bodies are asserted field by field, so they are read untyped. */
const loose = (value: unknown): any => value;

describe('mock-upstream media over real HTTP', () => {
  let app: INestApplication;
  let base: string;
  let sdk: OpenAI;

  beforeAll(async () => {
    app = await createMockUpstreamApp(silentLogger, { MOCK_MEDIA_JOB_MS: JOB_MS });
    await app.listen(0, '127.0.0.1');
    base = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/alpha/v1`;
    sdk = new OpenAI({ baseURL: base, apiKey: 'test-key', maxRetries: 0 });
  });

  afterAll(() => app.close());

  const post = (path: string, body: Record<string, unknown>) =>
    fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  const get = (path: string) => fetch(`${base}${path}`, { headers: auth });
  const bytes = async (response: Response) => Buffer.from(await response.arrayBuffer());
  const image = (body: Record<string, unknown>) =>
    post('/images/generations', { model: 'alpha-image', prompt: 'a red fox', ...body });

  describe('images', () => {
    it('answers a GPT image model with base64 PNGs of the size asked, and its usage', async () => {
      const response = await image({ n: 2, size: '1536x1024', quality: 'high' });
      expect(response.status).toBe(200);
      const body = await response.json().then(loose);
      expect(body).toMatchObject({
        background: 'opaque',
        output_format: 'png',
        quality: 'high',
        size: '1536x1024',
        usage: {
          input_tokens: 3,
          input_tokens_details: { text_tokens: 3, image_tokens: 0 },
          output_tokens: 2 * 6240,
          total_tokens: 3 + 2 * 6240,
        },
      });
      expect(body.data).toHaveLength(2);
      const png = readPng(Buffer.from(body.data[0].b64_json, 'base64'));
      expect(png).toMatchObject({ width: 1536, height: 1024, channels: 3 });
    });

    it('colours an image by its prompt without markers, the same at every call', async () => {
      const first = await (await image({ size: '256x256' })).json().then(loose);
      const marked = await (
        await image({ size: '256x256', prompt: 'a red [[delay:1]] fox' })
      )
        .json()
        .then(loose);
      const other = await (await image({ size: '256x256', prompt: 'a blue fox' })).json().then(loose);
      const pixel = (body: any) => readPng(Buffer.from(body.data[0].b64_json, 'base64')).firstPixel;
      expect(pixel(marked)).toEqual(pixel(first));
      expect(pixel(other)).not.toEqual(pixel(first));
    });

    it('encodes JPEG and WEBP, and a transparent background as an alpha channel', async () => {
      const jpeg = await (await image({ output_format: 'jpeg', size: '1024x1536' })).json().then(loose);
      expect(readJpegSize(Buffer.from(jpeg.data[0].b64_json, 'base64'))).toEqual({
        width: 1024,
        height: 1536,
      });
      const webp = await (
        await image({ output_format: 'webp', background: 'transparent', output_compression: 50 })
      )
        .json()
        .then(loose);
      expect(webp.background).toBe('transparent');
      expect(readWebp(Buffer.from(webp.data[0].b64_json, 'base64'))).toEqual({
        width: 1024,
        height: 1024,
        alpha: true,
      });
      const png = await (await image({ background: 'transparent', size: '512x512' })).json().then(loose);
      expect(readPng(Buffer.from(png.data[0].b64_json, 'base64'))).toMatchObject({ channels: 4 });
    });

    it('answers the classic model with a url that serves the file without a key, and a revised prompt', async () => {
      const response = await image({
        model: 'alpha-image-classic',
        size: '1792x1024',
        quality: 'hd',
        style: 'natural',
      });
      const body = await response.json().then(loose);
      expect(body.usage).toBeUndefined();
      expect(body.data).toEqual([{ url: expect.stringMatching(/^http:\/\//), revised_prompt: 'a red fox' }]);
      const file = await fetch(body.data[0].url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');
      expect(readPng(await bytes(file))).toMatchObject({ width: 1792, height: 1024 });
    });

    it('serves a url in the format asked', async () => {
      const body = await (await image({ response_format: 'url', output_format: 'webp' })).json().then(loose);
      const file = await fetch(body.data[0].url);
      expect(file.headers.get('content-type')).toBe('image/webp');
      expect(readWebp(await bytes(file))).toMatchObject({ width: 1024, height: 1024, alpha: false });
    });

    it.each([
      [{ model: 'alpha-image-classic', n: 2 }, 'n must be 1 for this model'],
      [{ n: 11 }, 'n must be an integer from 1 to 10'],
      [{ size: '1000x7' }, 'size must be auto or WIDTHxHEIGHT, even sides of 16 to 4096'],
      [{ quality: 'hd' }, 'quality must be one of auto, low, medium, high'],
      [
        { output_format: 'jpeg', background: 'transparent' },
        'A transparent background needs output_format png or webp',
      ],
      [{ output_compression: 101 }, 'output_compression must be from 0 to 100'],
    ])('refuses %j with 400', async (body, message) => {
      const response = await image(body);
      expect(response.status).toBe(400);
      expect((await response.json().then(loose)).error.message).toBe(message);
    });

    it('honours [[fail:502]] with Retry-After and [[delay:MS]]', async () => {
      const failed = await image({ prompt: 'fox [[fail:502]] [[retry-after:7]]' });
      expect(failed.status).toBe(502);
      expect(failed.headers.get('retry-after')).toBe('7');
      expect((await failed.json().then(loose)).error.message).toBe('Injected failure 502');
      const started = Date.now();
      expect((await image({ prompt: 'fox [[delay:300]]', size: '256x256' })).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    });

    it("is what the openai SDK's images.generate reads", async () => {
      const answer = await sdk.images.generate({ model: 'alpha-image', prompt: 'a fox', size: '1024x1024' });
      expect(readPng(Buffer.from(answer.data?.[0].b64_json ?? '', 'base64')).width).toBe(1024);
    });
  });

  describe('speech', () => {
    const speech = (body: Record<string, unknown>) =>
      post('/audio/speech', { model: 'alpha-tts', voice: 'alloy', input: 'hello world', ...body });

    it('answers WAV whose header agrees with its length: 60 ms a character, divided by speed', async () => {
      const response = await speech({ response_format: 'wav', speed: 2 });
      expect(response.headers.get('content-type')).toBe('audio/wav');
      expect(readWav(await bytes(response))).toEqual({
        sampleRate: 24_000,
        channels: 1,
        bits: 16,
        durationMs: (11 * 60) / 2,
      });
    });

    it('answers MP3 (the default) as whole frames at least as long as the speech', async () => {
      const response = await speech({ input: 'hello world [[delay:1]]' });
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      const { frames, durationMs } = readMp3(await bytes(response));
      expect(frames).toBe(Math.ceil((11 * 60) / 24));
      expect(durationMs).toBeGreaterThanOrEqual(11 * 60);
    });

    it('answers pcm as 24 kHz 16-bit samples, refuses what it cannot make, honours [[fail:NNN]]', async () => {
      const pcm = await speech({ response_format: 'pcm' });
      expect((await bytes(pcm)).length).toBe(2 * 24 * 11 * 60);
      expect((await speech({ response_format: 'flac' })).status).toBe(400);
      expect((await speech({ voice: undefined })).status).toBe(400);
      expect((await speech({ input: 'hi [[fail:503]]' })).status).toBe(503);
    });

    it('answers opus as Ogg pages of silent 20 ms packets, at least as long as the speech', async () => {
      const response = await speech({ response_format: 'opus' });
      expect(response.headers.get('content-type')).toBe('audio/ogg');
      expect(readOggOpus(await bytes(response)).durationMs).toBe(Math.ceil((11 * 60) / 20) * 20);
    });

    it("is what the openai SDK's audio.speech.create reads", async () => {
      const answer = await sdk.audio.speech.create({
        model: 'alpha-tts',
        voice: 'alloy',
        input: 'hello',
        response_format: 'wav',
      });
      expect(readWav(Buffer.from(await answer.arrayBuffer())).durationMs).toBe(5 * 60);
    });
  });

  describe('videos', () => {
    const createVideo = (body: Record<string, unknown>) => post('/videos', { model: 'alpha-video', ...body });
    const poll = async (id: string) => (await get(`/videos/${id}`)).json().then(loose);
    const completed = (id: string, timeoutMs = 5 * JOB_MS) =>
      expectEventually(
        async () => {
          const video = await poll(id);
          expect(video.status).toBe('completed');
          return video;
        },
        { timeoutMs, intervalMs: 25 },
      );

    it('goes queued, in progress, completed over the configured job time, then downloads as MP4', async () => {
      const started = Date.now();
      const created = await (
        await createVideo({ prompt: 'a wave', seconds: '8', size: '1280x720' })
      )
        .json()
        .then(loose);
      expect(created).toMatchObject({
        object: 'video',
        model: 'alpha-video',
        status: 'queued',
        progress: 0,
        seconds: '8',
        size: '1280x720',
        completed_at: null,
        error: null,
      });
      expect((await get(`/videos/${created.id}/content`)).status).toBe(404);
      const seen: Array<{ status: string; progress: number }> = [];
      const done = await expectEventually(
        async () => {
          const video = await poll(created.id);
          seen.push({ status: video.status, progress: video.progress });
          expect(video.status).toBe('completed');
          return video;
        },
        { timeoutMs: 5 * JOB_MS, intervalMs: 25 },
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(JOB_MS);
      const order = seen.map((s) => s.status).filter((status, i, all) => status !== all[i - 1]);
      expect(order).toEqual(['queued', 'in_progress', 'completed']);
      const progress = seen.map((s) => s.progress);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(done).toMatchObject({
        progress: 100,
        completed_at: expect.any(Number),
        expires_at: expect.any(Number),
      });

      const content = await get(`/videos/${created.id}/content`);
      expect(content.headers.get('content-type')).toBe('video/mp4');
      expect(readMp4(await bytes(content))).toEqual({
        brand: 'isom',
        durationMs: 8000,
        width: 1280,
        height: 720,
        samples: 8 * 24,
        codec: 'avc1',
      });
    });

    it('takes [[delay:MS]] as the job time and ends a [[job-fail]] job failed', async () => {
      const started = Date.now();
      const quick = await (await createVideo({ prompt: 'quick [[delay:200]]' })).json().then(loose);
      await completed(quick.id, JOB_MS);
      expect(Date.now() - started).toBeLessThan(JOB_MS);

      const failing = await (
        await createVideo({ prompt: 'doomed [[job-fail]] [[delay:200]]' })
      )
        .json()
        .then(loose);
      const failed = await expectEventually(
        async () => {
          const video = await poll(failing.id);
          expect(video.status).toBe('failed');
          return video;
        },
        { timeoutMs: JOB_MS, intervalMs: 25 },
      );
      expect(failed.error).toEqual({ code: 'video_generation_failed', message: expect.any(String) });
      expect((await get(`/videos/${failing.id}/content`)).status).toBe(404);
    });

    it('answers [[fail:502]] on creation, and 404 for an unknown id', async () => {
      const response = await createVideo({ prompt: 'a wave [[fail:502]]' });
      expect(response.status).toBe(502);
      expect((await get('/videos/video_unknown')).status).toBe(404);
      expect((await createVideo({ prompt: 'a wave', seconds: 0 })).status).toBe(400);
    });

    it('extends a completed video into a new job of the stitched length, the original unchanged', async () => {
      const original = await (
        await createVideo({ prompt: 'a wave [[delay:100]]', seconds: 4, size: '720x1280' })
      )
        .json()
        .then(loose);
      const unfinishedExtension = await post('/videos/extensions', {
        video: { id: original.id },
        prompt: 'more',
        seconds: '4',
      });
      expect(unfinishedExtension.status).toBe(400);
      await completed(original.id);
      const extension = await (
        await post('/videos/extensions', {
          video: { id: original.id },
          prompt: 'more [[delay:100]]',
          seconds: '8',
        })
      )
        .json()
        .then(loose);
      expect(extension).toMatchObject({ status: 'queued', seconds: '12', size: '720x1280' });
      expect(extension.id).not.toBe(original.id);
      await completed(extension.id);
      expect(await poll(original.id)).toMatchObject({ status: 'completed', seconds: '4' });
      const mp4 = readMp4(await bytes(await get(`/videos/${extension.id}/content`)));
      expect(mp4).toMatchObject({ durationMs: 12_000, width: 720, height: 1280 });
      const unknown = await post('/videos/extensions', {
        video: { id: 'video_unknown' },
        prompt: 'more',
        seconds: 4,
      });
      expect(unknown.status).toBe(404);
    });

    it.each([
      ['1080p', 1920, 1080],
      ['4k', 3840, 2160],
    ])(
      'upscales a completed video to %s as a new job of the configured time',
      async (resolution, width, height) => {
        const original = await (
          await createVideo({ prompt: 'a wave [[delay:100]]', seconds: 4, size: '1280x720' })
        )
          .json()
          .then(loose);
        await completed(original.id);
        const upscale = await (
          await post('/videos/upscales', { video: { id: original.id }, resolution })
        )
          .json()
          .then(loose);
        expect(upscale).toMatchObject({ status: 'queued', seconds: '4', size: `${width}x${height}` });
        await completed(upscale.id);
        expect(readMp4(await bytes(await get(`/videos/${upscale.id}/content`)))).toMatchObject({
          width,
          height,
        });
        expect(
          (await post('/videos/upscales', { video: { id: original.id }, resolution: '8k' })).status,
        ).toBe(400);
      },
    );

    it('deletes a finished video only', async () => {
      const video = await (await createVideo({ prompt: 'a wave [[delay:300]]' })).json().then(loose);
      const early = await fetch(`${base}/videos/${video.id}`, { method: 'DELETE', headers: auth });
      expect(early.status).toBe(400);
      await completed(video.id);
      const deleted = await fetch(`${base}/videos/${video.id}`, { method: 'DELETE', headers: auth });
      expect(await deleted.json().then(loose)).toEqual({
        id: video.id,
        object: 'video.deleted',
        deleted: true,
      });
      expect((await get(`/videos/${video.id}`)).status).toBe(404);
    });

    it("is what the openai SDK's videos create, retrieve, extend and downloadContent send and read", async () => {
      const created = await sdk.videos.create({
        model: 'alpha-video',
        prompt: 'a wave [[delay:100]]',
        seconds: '4',
      });
      expect(created.size).toBe('720x1280');
      await completed(created.id);
      expect((await sdk.videos.retrieve(created.id)).status).toBe('completed');
      const extension = await sdk.videos.extend({
        video: { id: created.id },
        prompt: 'on [[delay:100]]',
        seconds: '4',
      });
      expect(extension.seconds).toBe('8');
      await completed(extension.id);
      const content = await sdk.videos.downloadContent(extension.id);
      expect(readMp4(Buffer.from(await content.arrayBuffer())).durationMs).toBe(8000);
    });

    it('refuses every route without a key', async () => {
      const response = await fetch(`${base}/videos/video_x`);
      expect(response.status).toBe(401);
    });
  });
});
