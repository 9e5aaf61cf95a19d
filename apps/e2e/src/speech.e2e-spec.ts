import Decimal from 'decimal.js';
import OpenAI from 'openai';
import { http, seedOrganization, type SeededOrganization } from './support/gateway-http';
import {
  balanceOf,
  documentedExamples,
  expectBalance,
  historyDetail,
  historyItemAddedBy,
  inBothModes,
} from './support/media-api';
import { audioFormatOf } from './support/media-files';

/** Short, so that speech slower than it is seen answered 504 within the test. */
const SYNC_WAIT_MS = 4_000;
/** demo/tts: 1500.00 RUB per million characters. */
const RUB_PER_CHARACTER = new Decimal('1500').div(1_000_000);

/** POST /v1/audio/speech through the official openai SDK and over plain HTTP, in both modes. */
inBothModes('POST /v1/audio/speech', 'speech', { SYNC_WAIT_MS: String(SYNC_WAIT_MS) }, (mode, open) => {
  describe(`speech (${mode})`, () => {
    let api: string;
    let org: SeededOrganization;
    let openai: OpenAI;

    beforeAll(async () => {
      const target = await open();
      api = target.api;
      org = await seedOrganization(api, target.adminToken, '100.00');
      openai = new OpenAI({ apiKey: org.apiKey, baseURL: `${api}/v1`, maxRetries: 0 });
    }, 180_000);

    const speak = (body: Record<string, unknown>) =>
      fetch(`${api}/v1/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const errorOf = async (response: Response) =>
      ((await response.json()) as { error: Record<string, any> }).error;

    it('bills demo/tts per million characters: audio.speech.create answers MP3 bytes', async () => {
      const before = await balanceOf(api, org.apiKey);
      const input = 'Hello from the gateway, spoken aloud.';
      const id = await historyItemAddedBy(api, org.apiKey, async () => {
        const response = await openai.audio.speech.create({ model: 'demo/tts', input, voice: 'alloy' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('audio/mpeg');
        const audio = Buffer.from(await response.arrayBuffer());
        expect(audio.length).toBeGreaterThan(100);
        expect(audioFormatOf(audio)).toBe('mp3');
      });
      const charged = RUB_PER_CHARACTER.times(input.length);
      await expectBalance(api, org.apiKey, before.minus(charged));
      const detail = await historyDetail(api, org.apiKey, id);
      expect(detail).toMatchObject({ requestType: 'audio', apiType: 'media', status: 'completed' });
      expect(new Decimal(detail.clientCost).toString()).toBe(charged.toString());
    });

    it('answers WAV for response_format wav, at the speed asked for', async () => {
      const before = await balanceOf(api, org.apiKey);
      const response = await openai.audio.speech.create({
        model: 'demo/tts',
        input: 'A wave file.',
        voice: 'nova',
        response_format: 'wav',
        speed: 1.5,
      });
      expect(response.headers.get('content-type')).toMatch(/^audio\/(wav|x-wav|wave)/);
      expect(audioFormatOf(Buffer.from(await response.arrayBuffer()))).toBe('wav');
      await expectBalance(api, org.apiKey, before.minus(RUB_PER_CHARACTER.times('A wave file.'.length)));
    });

    it('answers a failed generation with the error envelope, at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const failed = await speak({ model: 'demo/tts', input: 'Broken [[fail:502]]', voice: 'alloy' });
      expect(failed.status).toBe(502);
      const error = await errorOf(failed);
      expect(error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
      const id = /Generation (gen-\S+) failed/.exec(error.message)![1];
      await expectBalance(api, org.apiKey, before);
      const detail = await historyDetail(api, org.apiKey, id);
      expect(detail.status).toBe('failed');
      expect(new Decimal(detail.clientCost).isZero()).toBe(true);
    });

    it('cancels speech not finished within SYNC_WAIT_MS and answers 504, at no cost', async () => {
      const before = await balanceOf(api, org.apiKey);
      const slow = await speak({
        model: 'demo/tts',
        input: `Slow [[delay:${SYNC_WAIT_MS + 4_000}]]`,
        voice: 'alloy',
      });
      expect(slow.status).toBe(504);
      const error = await errorOf(slow);
      expect(error).toMatchObject({ code: 'upstream_timeout' });
      const id = /generation (gen-\S+) did not finish/.exec(error.message)![1];
      expect((await http('GET', `${api}/v1/media/${id}`, { token: org.apiKey })).body.status).toBe(
        'cancelled',
      );
      await expectBalance(api, org.apiKey, before);
      expect(await historyDetail(api, org.apiKey, id)).toMatchObject({ isCancelled: true });
    });

    it('answers 200 with audio to every example Swagger UI offers', async () => {
      const examples = await documentedExamples(api, '/v1/audio/speech');
      expect(Object.keys(examples)).toEqual(['mp3', 'wav']);
      for (const [name, body] of Object.entries(examples)) {
        const answered = await speak(body as Record<string, unknown>);
        expect({ name, status: answered.status }).toEqual({ name, status: 200 });
        expect(audioFormatOf(Buffer.from(await answered.arrayBuffer()))).toBe(name);
      }
    });

    describe('limits', () => {
      const base = { model: 'demo/tts', input: 'Hi', voice: 'alloy' };
      it.each<[string, Record<string, unknown>, string]>([
        ['no input', { model: 'demo/tts', voice: 'alloy' }, 'input'],
        ['an input over the model’s 5000 characters', { ...base, input: 'a'.repeat(5_001) }, 'input'],
        ['no voice', { model: 'demo/tts', input: 'Hi' }, 'voice'],
        ['a voice the model does not have', { ...base, voice: 'shimmer' }, 'voice'],
        ['a format the model does not make', { ...base, response_format: 'flac' }, 'response_format'],
        ['a speed outside the model’s range', { ...base, speed: 4 }, 'speed'],
        ['streamed events', { ...base, stream_format: 'sse' }, 'stream_format'],
      ])('refuses %s with 400 naming the field', async (_label, body, param) => {
        const refused = await speak(body);
        expect(refused.status).toBe(400);
        expect(await errorOf(refused)).toMatchObject({ type: 'invalid_request_error', param });
      });
    });
  });
});
