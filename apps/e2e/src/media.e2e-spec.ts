import Decimal from 'decimal.js';
import { http, seedOrganization, type SeededOrganization } from './support/gateway-http';
import {
  balanceOf,
  documentedExamples,
  expectBalance,
  finalGeneration,
  type Generation,
  historyDetail,
  historyItemAddedBy,
  inBothModes,
} from './support/media-api';
import { audioFormatOf, download, isMp4, readImage } from './support/media-files';

/** Longer than a mock video job (5 s), so that a synchronous upscale completes within it. */
const SYNC_WAIT_MS = 8_000;

/** A record without its file urls, which are signed afresh whenever it is read. */
function unsigned(generation: Generation): Generation {
  const strip = (file: Record<string, unknown>) => ({ ...file, url: expect.any(String) });
  const data = generation.data;
  return { ...generation, data: Array.isArray(data) ? data.map(strip) : data ? strip(data) : data };
}

/** POST /v1/media, its operations, cancel and GET, over HTTP in both modes. */
/**
 * The media service asks about a provider's video job soon and often, so that a 5 s job is seen
 * done within a second of its end on a busy machine, well inside SYNC_WAIT_MS.
 */
const MEDIA_ENV = {
  SYNC_WAIT_MS: String(SYNC_WAIT_MS),
  MEDIA_POLL_FIRST_MS: '250',
  MEDIA_POLL_MAX_MS: '1000',
};

inBothModes('media generations', 'media', MEDIA_ENV, (mode, open) => {
  describe(`POST /v1/media, operations and cancel (${mode})`, () => {
    let api: string;
    let org: SeededOrganization;
    let other: SeededOrganization;
    /** A completed 5 s video of `org`, the original of the operations. */
    let video: Generation;

    beforeAll(async () => {
      const target = await open();
      api = target.api;
      [org, other] = await Promise.all([
        seedOrganization(api, target.adminToken, '1000.00'),
        seedOrganization(api, target.adminToken, '10.00'),
      ]);
    }, 180_000);

    const post = (path: string, body: unknown, token = org.apiKey) =>
      http<Generation>('POST', `${api}${path}`, { token, body });
    const get = (id: string, token = org.apiKey) =>
      http<Generation>('GET', `${api}/v1/media/${id}`, { token });

    it('bills demo/video per second: created async it is pending at once, and completes when polled', async () => {
      const before = await balanceOf(api, org.apiKey);
      const started = Date.now();
      const created = await post('/v1/media', {
        model: 'demo/video',
        params: { prompt: 'Waves on a rocky shore', duration: 5 },
        async: true,
      });
      expect(created.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(created.body).toMatchObject({
        id: expect.stringMatching(/^gen-/),
        object: 'media.generation',
        status: 'pending',
        model: 'demo/video',
        created: expect.any(Number),
      });
      video = await finalGeneration(api, org.apiKey, created.body.id);
      expect(video).toMatchObject({ status: 'completed', completed_at: expect.any(Number) });
      const file = await download(video.data.url);
      expect(file.status).toBe(200);
      expect(isMp4(file.bytes)).toBe(true);
      // 5 s at 10.00 RUB per second (720p, the default).
      expect(video.usage).toMatchObject({ duration_seconds: 5, cost_rub: 50, cost: 50 });
      await expectBalance(api, org.apiKey, before.minus(50));
      expect(await historyDetail(api, org.apiKey, video.id)).toMatchObject({
        requestType: 'video',
        apiType: 'media',
        responseMode: 'async',
        status: 'completed',
        clientCost: expect.stringMatching(/^50(\.0+)?$/),
      });
      expect((await get(video.id)).body).toEqual(unsigned(video));
      expect((await http('GET', `${api}/v2/media/${video.id}`, { token: org.apiKey })).body).toEqual(
        unsigned(video),
      );
    });

    it('bills demo/video by its resolution tiers', async () => {
      const before = await balanceOf(api, org.apiKey);
      const created = await post('/v1/media', {
        model: 'demo/video',
        params: { prompt: 'A waterfall', duration: 3, resolution: '1080p' },
        async: true,
      });
      const done = await finalGeneration(api, org.apiKey, created.body.id);
      // 3 s at 20.00 RUB per second at 1080p.
      expect(done.usage).toMatchObject({ cost_rub: 60 });
      await expectBalance(api, org.apiKey, before.minus(60));
    });

    it('extends a finished video as a NEW generation, pending at once, the original unchanged', async () => {
      const before = await balanceOf(api, org.apiKey);
      const extended = await post(`/v1/media/${video.id}/operations`, {
        operation: 'extend',
        params: { prompt: 'The camera rises above the clouds', duration: 3 },
      });
      expect(extended.status).toBe(200);
      expect(extended.body.status).toBe('pending');
      expect(extended.body.id).not.toBe(video.id);
      const done = await finalGeneration(api, org.apiKey, extended.body.id);
      expect(done.status).toBe('completed');
      expect(isMp4((await download(done.data.url)).bytes)).toBe(true);
      expect((await get(video.id)).body).toEqual(unsigned(video));
      // 3 s at the extension's 10.00 RUB per second.
      await expectBalance(api, org.apiKey, before.minus(30));
    });

    it('upscales to 1080p synchronously: completed, data an object with url', async () => {
      const before = await balanceOf(api, org.apiKey);
      const upscaled = await post(`/v1/media/${video.id}/operations`, { operation: 'upscale_1080p' });
      expect(upscaled.status).toBe(200);
      expect(upscaled.body).toMatchObject({ status: 'completed', data: { url: expect.any(String) } });
      expect(upscaled.body.id).not.toBe(video.id);
      expect(upscaled.body.usage).toMatchObject({ cost_rub: 15 });
      expect(isMp4((await download(upscaled.body.data.url)).bytes)).toBe(true);
      await expectBalance(api, org.apiKey, before.minus(15));
    });

    it('upscales to 4k asynchronously: the new id at once, completed when polled', async () => {
      const before = await balanceOf(api, org.apiKey);
      const upscaled = await post(`/v1/media/${video.id}/operations`, {
        operation: 'upscale_4k',
        async: true,
      });
      expect(upscaled.status).toBe(200);
      expect(upscaled.body.status).toBe('pending');
      const done = await finalGeneration(api, org.apiKey, upscaled.body.id);
      expect(done).toMatchObject({
        status: 'completed',
        data: { url: expect.any(String) },
        usage: { cost_rub: 40 },
      });
      await expectBalance(api, org.apiKey, before.minus(40));
    });

    it('generates an image synchronously, dropping a parameter the model does not take with a warning', async () => {
      const before = await balanceOf(api, org.apiKey);
      const image = await post('/v2/media', {
        model: 'demo/image',
        params: { prompt: 'A teapot', size: '256x256', output_format: 'jpeg', style: 'vivid' },
      });
      expect(image.status).toBe(200);
      expect(image.body.status).toBe('completed');
      expect(image.body.warnings?.join(' ')).toContain('style');
      const [file] = image.body.data as Array<{ url: string; content_type: string }>;
      expect(file.content_type).toBe('image/jpeg');
      expect(readImage((await download(file.url)).bytes)).toEqual({
        format: 'jpeg',
        width: 256,
        height: 256,
      });
      await expectBalance(api, org.apiKey, before.minus(4));
    });

    it('speaks synchronously with demo/tts', async () => {
      const before = await balanceOf(api, org.apiKey);
      const speech = await post('/v1/media', {
        model: 'demo/tts',
        params: { prompt: 'Hello there', voice: 'echo' },
      });
      expect(speech.status).toBe(200);
      expect(speech.body).toMatchObject({ status: 'completed', data: { url: expect.any(String) } });
      expect(audioFormatOf((await download(speech.body.data.url)).bytes)).toBe('mp3');
      expect((await historyDetail(api, org.apiKey, speech.body.id)).requestType).toBe('audio');
      await expectBalance(api, org.apiKey, before.minus('0.0165'));
    });

    it('goes on with a synchronous generation whose client left, and bills it when it completes', async () => {
      const before = await balanceOf(api, org.apiKey);
      const id = await historyItemAddedBy(api, org.apiKey, async () => {
        const leaving = new AbortController();
        setTimeout(() => leaving.abort(), 1_000);
        const abandoned = await fetch(`${api}/v1/media`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'demo/video',
            params: { prompt: 'Nobody waits for this', duration: 3 },
          }),
          signal: leaving.signal,
        }).catch((err: unknown) => err);
        expect(abandoned).toMatchObject({ name: 'AbortError' });
      });
      expect((await finalGeneration(api, org.apiKey, id)).status).toBe('completed');
      await expectBalance(api, org.apiKey, before.minus(30));
    });

    it('answers a synchronous video slower than SYNC_WAIT_MS as it stands; cancel ends it cancelled at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const started = Date.now();
      const slow = await post('/v1/media', {
        model: 'demo/video',
        params: { prompt: 'A very slow sunset [[delay:60000]]', duration: 3 },
      });
      expect(slow.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SYNC_WAIT_MS - 100);
      expect(['pending', 'processing']).toContain(slow.body.status);
      const cancelled = await post(`/v1/media/${slow.body.id}/cancel`, {});
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expect((await get(slow.body.id)).body.status).toBe('cancelled');
      await expectBalance(api, org.apiKey, before);
      const detail = await historyDetail(api, org.apiKey, slow.body.id);
      expect(detail.isCancelled).toBe(true);
      expect(new Decimal(detail.clientCost).isZero()).toBe(true);
    });

    it('ends a video the provider fails with error.code, at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const created = await post('/v1/media', {
        model: 'demo/video',
        params: { prompt: 'Doomed [[job-fail]] [[delay:1000]]', duration: 3 },
        async: true,
      });
      const failed = await finalGeneration(api, org.apiKey, created.body.id);
      expect(failed).toMatchObject({
        status: 'failed',
        error: { code: expect.any(String), message: expect.any(String) },
      });
      await expectBalance(api, org.apiKey, before);
      expect(new Decimal((await historyDetail(api, org.apiKey, failed.id)).clientCost).isZero()).toBe(true);
    });

    it('ends an image the provider refuses to make with error.code, at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const failed = await post('/v1/media', {
        model: 'demo/image',
        params: { prompt: 'Broken [[fail:502]]' },
      });
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
      await expectBalance(api, org.apiKey, before);
    });

    describe('limits', () => {
      it.each<[string, Record<string, unknown>, string]>([
        ['no params', { model: 'demo/video' }, 'params'],
        ['no model', { params: { prompt: 'x' } }, 'model'],
        ['async not a boolean', { model: 'demo/video', params: { prompt: 'x' }, async: 'yes' }, 'async'],
        ['an unknown model', { model: 'demo/nothing', params: { prompt: 'x' } }, 'model'],
        ['a missing required param', { model: 'demo/video', params: { duration: 5 } }, 'params.prompt'],
        [
          'a duration of 11 s',
          { model: 'demo/video', params: { prompt: 'x', duration: 11 } },
          'params.duration',
        ],
        [
          'a duration of 2 s',
          { model: 'demo/video', params: { prompt: 'x', duration: 2 } },
          'params.duration',
        ],
        [
          'a value the model does not list',
          { model: 'demo/video', params: { prompt: 'x', resolution: '4k' } },
          'params.resolution',
        ],
      ])('refuses creation with %s, naming it', async (_label, body, param) => {
        const refused = await post('/v1/media', body);
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ error: { type: 'invalid_request_error', param } });
      });

      it.each<[string, Record<string, unknown>, string]>([
        ['an unknown operation', { operation: 'upscale_8k' }, 'operation'],
        [
          'an extension of 11 s',
          { operation: 'extend', params: { prompt: 'x', duration: 11 } },
          'params.duration',
        ],
        [
          'an extension of 2 s',
          { operation: 'extend', params: { prompt: 'x', duration: 2 } },
          'params.duration',
        ],
        ['an extension without a prompt', { operation: 'extend', params: { duration: 5 } }, 'params.prompt'],
      ])('refuses an operation with %s, naming it', async (_label, body, param) => {
        const refused = await post(`/v1/media/${video.id}/operations`, body);
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ error: { param } });
      });

      it('refuses an operation the model does not list with 400, and one on an unfinished original with 409', async () => {
        const image = await post('/v1/media', { model: 'demo/image', params: { prompt: 'A still life' } });
        const unlisted = await post(`/v1/media/${image.body.id}/operations`, { operation: 'upscale_4k' });
        expect(unlisted.status).toBe(400);
        const running = await post('/v1/media', {
          model: 'demo/video',
          params: { prompt: 'Still running [[delay:30000]]', duration: 3 },
          async: true,
        });
        const early = await post(`/v1/media/${running.body.id}/operations`, { operation: 'upscale_1080p' });
        expect(early.status).toBe(409);
        expect((await post(`/v1/media/${running.body.id}/cancel`, {})).body.status).toBe('cancelled');
      });
    });

    it("answers another organization's id, and an unknown one, 404 on every route", async () => {
      for (const id of [video.id, 'gen-00000000-0000-4000-8000-000000000000']) {
        const token = other.apiKey;
        expect((await get(id, token)).status).toBe(404);
        expect((await http('GET', `${api}/v2/media/${id}`, { token })).status).toBe(404);
        expect((await post(`/v1/media/${id}/operations`, { operation: 'upscale_1080p' }, token)).status).toBe(
          404,
        );
        expect((await post(`/v1/media/${id}/cancel`, {}, token)).status).toBe(404);
      }
      expect((await get(video.id)).body).toEqual(unsigned(video));
    });

    it('documents every media route in Swagger, with examples of the demo models', async () => {
      const doc = (await http('GET', `${api}/docs-json`)).body;
      const create = doc.paths['/api/v1/media'].post;
      expect(Object.keys(create.requestBody.content['application/json'].examples)).toEqual([
        'image',
        'video',
        'speech',
      ]);
      expect(doc.paths['/api/v2/media'].post).toBeDefined();
      expect(Object.keys(doc.paths['/api/v1/media/{id}/operations'].post.responses)).toEqual(
        expect.arrayContaining(['200', '400', '402', '404', '409']),
      );
      expect(doc.paths['/api/v1/media/{id}/cancel'].post.responses).toHaveProperty('404');
      // Cancelling an ended generation answers it as it stands (decision 171), so cancel documents no 409.
      expect(doc.paths['/api/v1/media/{id}/cancel'].post.responses).not.toHaveProperty('409');
      expect(doc.paths['/api/v1/audio/speech'].post.responses['200'].content).toHaveProperty('audio/mpeg');
    });

    it('answers 200 to every example Swagger UI offers, an operation on a finished video', async () => {
      for (const [path, expected] of [
        ['/v1/media', ['image', 'video', 'speech']],
        [`/v1/media/${video.id}/operations`, ['upscale', 'extend', 'upscaleAsync']],
      ] as const) {
        const examples = await documentedExamples(api, path.replace(video.id, '{id}'));
        expect(Object.keys(examples)).toEqual(expected);
        for (const [name, body] of Object.entries(examples)) {
          const answered = await post(path, body);
          expect({ name, status: answered.status }).toEqual({ name, status: 200 });
          expect(answered.body.status).not.toBe('failed');
        }
      }
    });
  });
});
