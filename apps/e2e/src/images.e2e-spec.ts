import Decimal from 'decimal.js';
import OpenAI from 'openai';
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
import { download, readImage } from './support/media-files';

/** Short, so that an image slower than it is seen turning into a pending record within the test. */
const SYNC_WAIT_MS = 4_000;

/** The images API of the interface through the official openai SDK and over plain HTTP, in both modes. */
inBothModes('POST /v2/images/generations', 'images', { SYNC_WAIT_MS: String(SYNC_WAIT_MS) }, (mode, open) => {
  describe(`image generation (${mode})`, () => {
    let api: string;
    let org: SeededOrganization;
    let openai: OpenAI;

    beforeAll(async () => {
      const target = await open();
      api = target.api;
      org = await seedOrganization(api, target.adminToken, '1000.00');
      openai = new OpenAI({ apiKey: org.apiKey, baseURL: `${api}/v1`, maxRetries: 0 });
    }, 180_000);

    const generate = (body: Record<string, unknown>, path = '/v2/images/generations') =>
      http('POST', `${api}${path}`, { token: org.apiKey, body });

    it('bills demo/image per image through the SDK: a url that serves a PNG of the asked size', async () => {
      const before = await balanceOf(api, org.apiKey);
      const result = await openai.images.generate({
        model: 'demo/image',
        prompt: 'A lighthouse at dawn',
        size: '512x512',
      });
      expect(result.created).toEqual(expect.any(Number));
      expect(result.data).toHaveLength(1);
      const url = result.data![0].url!;
      expect(url).toMatch(/^https?:\/\//);
      const file = await download(url);
      expect(file.status).toBe(200);
      expect(file.type).toBe('image/png');
      expect(readImage(file.bytes)).toEqual({ format: 'png', width: 512, height: 512 });
      // 4.00 RUB per image at quality auto.
      expect(result.usage).toMatchObject({
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
        cost_rub: 4,
        cost: 4,
      });
      await expectBalance(api, org.apiKey, before.minus(4));
    });

    it('bills demo/image quality tiers: two high-quality WEBP images as b64_json, decodable at their size', async () => {
      const before = await balanceOf(api, org.apiKey);
      const result = await openai.images.generate({
        model: 'demo/image',
        prompt: 'A red fox in the snow',
        n: 2,
        size: '256x256',
        quality: 'high',
        output_format: 'webp',
        output_compression: 80,
        response_format: 'b64_json',
      });
      expect(result.data).toHaveLength(2);
      for (const item of result.data!) {
        expect(item.url).toBeUndefined();
        expect(readImage(Buffer.from(item.b64_json!, 'base64'))).toEqual({
          format: 'webp',
          width: 256,
          height: 256,
        });
      }
      // 16.00 RUB per image at quality high.
      expect(result.usage).toMatchObject({ cost_rub: 32, cost: 32 });
      await expectBalance(api, org.apiKey, before.minus(32));
    });

    it('answers a JPEG at /v1/images/generations too, the path an OpenAI client calls', async () => {
      const before = await balanceOf(api, org.apiKey);
      const result = await generate(
        {
          model: 'demo/image',
          prompt: 'A harbour',
          size: '1024x1536',
          output_format: 'jpeg',
          response_format: 'b64_json',
        },
        '/v1/images/generations',
      );
      expect(result.status).toBe(200);
      expect(readImage(Buffer.from(result.body.data[0].b64_json, 'base64'))).toEqual({
        format: 'jpeg',
        width: 1024,
        height: 1536,
      });
      await expectBalance(api, org.apiKey, before.minus(4));
    });

    it('bills demo/image-classic per image and by its hd tier, with the revised prompt', async () => {
      const before = await balanceOf(api, org.apiKey);
      const standard = await openai.images.generate({
        model: 'demo/image-classic',
        prompt: 'A city',
        style: 'natural',
      });
      expect(standard.data![0]).toMatchObject({
        url: expect.any(String),
        revised_prompt: expect.any(String),
      });
      expect(standard.usage).toMatchObject({ cost_rub: 6 });
      const hd = await openai.images.generate({
        model: 'demo/image-classic',
        prompt: 'A city at night',
        quality: 'hd',
        size: '1792x1024',
      });
      expect(readImage((await download(hd.data![0].url!)).bytes)).toMatchObject({
        width: 1792,
        height: 1024,
      });
      expect(hd.usage).toMatchObject({ cost_rub: 12 });
      await expectBalance(api, org.apiKey, before.minus(18));
    });

    it('records an image generation in history as an image of the media API, with its cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const id = await historyItemAddedBy(api, org.apiKey, async () => {
        const created = await generate({ model: 'demo/image', prompt: 'A history entry', quality: 'medium' });
        expect(created.status).toBe(200);
      });
      const detail = await historyDetail(api, org.apiKey, id);
      expect(detail).toMatchObject({ requestType: 'image', apiType: 'media', status: 'completed' });
      // 8.00 RUB per image at quality medium.
      expect(new Decimal(detail.clientCost).toNumber()).toBe(8);
      await expectBalance(api, org.apiKey, before.minus(8));
    });

    it('answers an image slower than SYNC_WAIT_MS as the pending record, completed when polled', async () => {
      const before = await balanceOf(api, org.apiKey);
      const started = Date.now();
      const pending = await generate({
        model: 'demo/image',
        prompt: `A slow sunrise [[delay:${SYNC_WAIT_MS + 3_000}]]`,
      });
      expect(pending.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SYNC_WAIT_MS - 100);
      expect(pending.body).toEqual({
        id: expect.stringMatching(/^gen-/),
        status: 'pending',
        model: 'demo/image',
        created: expect.any(Number),
      });
      const done = await finalGeneration(api, org.apiKey, pending.body.id);
      expect(done.status).toBe('completed');
      const [file] = done.data as Array<{ url: string; content_type: string }>;
      expect(file.content_type).toBe('image/png');
      expect(readImage((await download(file.url)).bytes).format).toBe('png');
      expect(done.usage).toMatchObject({ cost_rub: 4 });
      await expectBalance(api, org.apiKey, before.minus(4));
    });

    it('answers a failed generation with the error envelope, at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const failed = await openai.images
        .generate({ model: 'demo/image', prompt: 'A broken provider [[fail:502]]' })
        .catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(OpenAI.APIError);
      expect(failed).toMatchObject({ status: 502, error: { type: 'api_error', code: 'upstream_error' } });
      expect((failed as InstanceType<typeof OpenAI.APIError>).message).toMatch(
        /Generation gen-\S+ failed \(/,
      );
      const id = /Generation (gen-\S+) failed/.exec((failed as Error).message)![1];
      const record = await http<Generation>('GET', `${api}/v1/media/${id}`, { token: org.apiKey });
      expect(record.body).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
      await expectBalance(api, org.apiKey, before);
      const detail = await historyDetail(api, org.apiKey, id);
      expect(detail.status).toBe('failed');
      expect(new Decimal(detail.clientCost).isZero()).toBe(true);
    });

    describe('limits of the interface', () => {
      const base = { model: 'demo/image', prompt: 'x' };
      it.each<[string, Record<string, unknown>, string]>([
        ['no prompt', { model: 'demo/image' }, 'prompt'],
        ['a prompt over 32000 characters', { ...base, prompt: 'p'.repeat(32_001) }, 'prompt'],
        [
          'a prompt over 4000 characters on the older model',
          { model: 'demo/image-classic', prompt: 'p'.repeat(4_001) },
          'prompt',
        ],
        ['n 0', { ...base, n: 0 }, 'n'],
        ['n 11', { ...base, n: 11 }, 'n'],
        ['n 2 on the older model', { model: 'demo/image-classic', prompt: 'x', n: 2 }, 'n'],
        ['an unknown size', { ...base, size: '300x300' }, 'size'],
        [
          'a size the older model does not make',
          { model: 'demo/image-classic', prompt: 'x', size: '512x512' },
          'size',
        ],
        ['an unknown quality', { ...base, quality: 'ultra' }, 'quality'],
        ['hd on the newer model', { ...base, quality: 'hd' }, 'quality'],
        ['an unknown response_format', { ...base, response_format: 'binary' }, 'response_format'],
        ['an unknown style', { ...base, style: 'noir' }, 'style'],
        ['an unknown output_format', { ...base, output_format: 'gif' }, 'output_format'],
        ['an unknown background', { ...base, background: 'none' }, 'background'],
        ['output_compression -1', { ...base, output_compression: -1 }, 'output_compression'],
        ['output_compression 101', { ...base, output_compression: 101 }, 'output_compression'],
        ['a user over 128 characters', { ...base, user: 'u'.repeat(129) }, 'user'],
        ['a model that does not make images', { model: 'demo/chat', prompt: 'x' }, 'model'],
      ])('refuses %s with 400 naming the field', async (_label, body, param) => {
        const refused = await generate(body);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param });
      });
    });

    it('documents the route in Swagger with examples of the demo models', async () => {
      const doc = (await http('GET', `${api}/docs-json`)).body;
      const route = doc.paths['/api/v2/images/generations'].post;
      expect(Object.keys(route.requestBody.content['application/json'].examples)).toEqual([
        'url',
        'b64',
        'classic',
      ]);
      expect(Object.keys(route.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '402', '409', '429', '502']),
      );
      expect(doc.paths['/api/v1/images/generations'].post).toBeDefined();
    });

    it('answers 200 with images to every example Swagger UI offers', async () => {
      for (const [name, body] of Object.entries(await documentedExamples(api, '/v2/images/generations'))) {
        const answered = await generate(body as Record<string, unknown>);
        expect({ name, status: answered.status }).toEqual({ name, status: 200 });
        expect(answered.body.data.length).toBeGreaterThan(0);
      }
    });

    it('answers ten images in one request, each decodable', async () => {
      const result = await openai.images.generate({
        model: 'demo/image',
        prompt: 'Ten lighthouses',
        n: 10,
        response_format: 'b64_json',
      });
      expect(result.data).toHaveLength(10);
      for (const item of result.data!)
        expect(readImage(Buffer.from(item.b64_json!, 'base64'))).toEqual({
          format: 'png',
          width: 1024,
          height: 1024,
        });
      expect(result.usage).toMatchObject({ cost_rub: 40 });
    });
  });
});
