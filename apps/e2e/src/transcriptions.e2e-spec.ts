import { expectEventually } from '@gw/testing';
import OpenAI, { toFile } from 'openai';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http } from './support/gateway-http';
import { pcmWavHeader } from './support/wav';

/** A 16 kHz mono 16-bit PCM WAV of a 440 Hz sine wave, written the way any recorder would. */
function sineWav(seconds: number): Buffer {
  const rate = 16_000;
  const samples = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + samples * 2);
  pcmWavHeader(samples * 2).copy(wav);
  for (let i = 0; i < samples; i++)
    wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  return wav;
}

/** Speech to text against the built embedded app: the official SDK, both request forms, limits and SSRF refusals. */
describe('POST /v1/audio/transcriptions against the embedded gateway', () => {
  let gateway: EmbeddedGateway;
  let api: string;
  let apiKey: string;
  let openai: OpenAI;
  const tone = sineWav(3);

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('stt');
    api = gateway.api;
    apiKey = gateway.apiKey;
    openai = new OpenAI({ apiKey, baseURL: `${api}/v1`, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  const upload = (form: FormData) =>
    fetch(`${api}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: form,
    }).then(async (response) => ({
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.text(),
    }));

  describe('the official openai SDK', () => {
    it('answers json with the text and the duration-based cost', async () => {
      const result = await openai.audio.transcriptions.create({
        file: await toFile(tone, 'tone.wav'),
        model: 'demo/whisper',
      });
      expect(result.text).toContain('quick brown fox');
      // 3 s at 0.60 RUB per minute.
      expect((result as unknown as { usage: unknown }).usage).toEqual({
        durationSeconds: 3,
        cost: 0.03,
        cost_rub: 0.03,
      });
    });

    it('answers verbose_json with segments and words', async () => {
      const result = await openai.audio.transcriptions.create({
        file: await toFile(tone, 'tone.wav'),
        model: 'demo/whisper',
        response_format: 'verbose_json',
        timestamp_granularities: ['word', 'segment'],
        language: 'en',
      });
      expect(result).toMatchObject({
        language: 'en',
        duration: 3,
        text: expect.stringContaining('liquor jugs'),
      });
      expect(result.segments?.map((s) => [s.start, s.end])).toEqual([
        [0, 1.5],
        [1.5, 3],
      ]);
      expect(result.words?.[0]).toMatchObject({ word: 'The', start: 0 });
    });

    it.each([
      ['text', /^The quick brown fox .*jugs\.$/],
      [
        'srt',
        /^1\n00:00:00,000 --> 00:00:01,500\nThe quick brown fox jumps over the lazy dog\.\n\n2\n00:00:01,500 --> 00:00:03,000\n/,
      ],
      ['vtt', /^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.500\nThe quick brown fox/],
    ] as const)('answers %s as text', async (format, expected) => {
      const result = await openai.audio.transcriptions.create({
        file: await toFile(tone, 'tone.wav'),
        model: 'demo/whisper',
        response_format: format,
      });
      expect(result).toMatch(expected);
    });

    it('answers diarized_json with speakers on the diarizing model', async () => {
      const result = await openai.audio.transcriptions.create({
        file: await toFile(tone, 'tone.wav'),
        model: 'demo/transcribe-diarize',
        response_format: 'diarized_json',
        known_speaker_names: ['Anna', 'Boris'],
      });
      // This SDK version types diarized_json as a plain Transcription; the body has the diarized fields.
      const diarized = result as unknown as { segments: Array<{ speaker: string }>; duration: number };
      expect(diarized.segments.map((s) => s.speaker)).toEqual(['Anna', 'Boris']);
      expect(diarized.duration).toBe(3);
    });

    it('refuses streaming on the classic model naming the parameter', async () => {
      await expect(
        openai.audio.transcriptions.create({
          file: await toFile(tone, 'tone.wav'),
          model: 'demo/whisper',
          stream: true,
        }),
      ).rejects.toMatchObject({
        status: 400,
        param: 'stream',
      });
    });
  });

  describe('request forms', () => {
    it('reads multipart with indexed array names and answers the right content types', async () => {
      const form = new FormData();
      form.append('file', new Blob([tone], { type: 'audio/wav' }), 'tone.wav');
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[0]', 'word');
      form.append('temperature', '0.3');
      const verbose = await upload(form);
      expect(verbose.status).toBe(200);
      expect(verbose.type).toMatch(/^application\/json/);
      expect(JSON.parse(verbose.body)).toMatchObject({ model: 'demo/whisper', words: expect.any(Array) });
      expect(JSON.parse(verbose.body)).not.toHaveProperty('segments');

      for (const [format, type] of [
        ['srt', 'application/x-subrip'],
        ['vtt', 'text/vtt'],
        ['text', 'text/plain'],
      ]) {
        const subtitles = new FormData();
        subtitles.append('file', new Blob([tone]), 'tone.wav');
        subtitles.append('response_format', format);
        expect(await upload(subtitles)).toMatchObject({
          status: 200,
          type: expect.stringMatching(new RegExp(`^${type}`)),
        });
      }
    });

    it('reads JSON with the audio as a base64 data URL', async () => {
      const response = await http('POST', `${api}/v1/audio/transcriptions`, {
        token: apiKey,
        body: { file: `data:audio/wav;base64,${tone.toString('base64')}`, model: 'demo/whisper' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        text: expect.stringContaining('quick brown fox'),
        usage: { durationSeconds: 3, cost_rub: 0.03 },
      });
    });

    it.each([
      ['temperature above 1', { temperature: 2 }, 'temperature'],
      [
        'five known speakers',
        { known_speaker_names: ['a', 'b', 'c', 'd', 'e'], model: 'demo/transcribe-diarize' },
        'known_speaker_names',
      ],
      ['an unknown response_format', { response_format: 'xml' }, 'response_format'],
      ['an unknown field', { colour: 'blue' }, 'colour'],
    ])('refuses %s with 400 naming the parameter', async (_label, fields, param) => {
      const response = await http('POST', `${api}/v1/audio/transcriptions`, {
        token: apiKey,
        body: { file: `data:audio/wav;base64,${tone.toString('base64')}`, ...fields },
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
    });

    it('refuses content that is not audio, whatever it is called', async () => {
      const form = new FormData();
      form.append(
        'file',
        new Blob([Buffer.from('%PDF-1.7 definitely not audio')], { type: 'audio/wav' }),
        'tone.wav',
      );
      const response = await upload(form);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error.param).toBe('file');
    });

    it('refuses more than 25 MB with 413, uploaded or as a data URL', async () => {
      const big = Buffer.concat([tone, Buffer.alloc(25 * 1024 * 1024)]);
      const form = new FormData();
      form.append('file', new Blob([big]), 'big.wav');
      const uploaded = await upload(form);
      expect(uploaded.status).toBe(413);
      expect(JSON.parse(uploaded.body).error).toMatchObject({ code: 'payload_too_large', param: 'file' });
      const json = await http('POST', `${api}/v1/audio/transcriptions`, {
        token: apiKey,
        body: { file: `data:audio/wav;base64,${big.toString('base64')}` },
      });
      expect(json.status).toBe(413);
      expect(json.body.error).toMatchObject({ code: 'payload_too_large', param: 'file' });
    });

    it('refuses an upload under another name than file with a 400 naming file', async () => {
      const form = new FormData();
      form.append('audio', new Blob([tone]), 'tone.wav');
      const response = await upload(form);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({
        message: 'The audio file must be sent as the field `file`',
        param: 'file',
      });
    });

    it('takes a multipart text field file as a data URL, as JSON does', async () => {
      const form = new FormData();
      form.append('file', `data:audio/wav;base64,${tone.toString('base64')}`);
      const response = await upload(form);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ usage: { durationSeconds: 3 } });
    });

    it('refuses two files with a 400 naming file', async () => {
      const form = new FormData();
      form.append('file', new Blob([tone]), 'one.wav');
      form.append('file', new Blob([tone]), 'two.wav');
      const response = await upload(form);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({ code: 'invalid_request', param: 'file' });
    });

    it.each([
      ['loopback', 'http://127.0.0.1:9/tone.wav'],
      ['a name resolving to loopback', 'http://localhost:9/tone.wav'],
      ['IPv6 loopback', 'http://[::1]:9/tone.wav'],
      ['the metadata endpoint', 'http://169.254.169.254/latest/meta-data'],
      ['a private address', 'http://10.0.0.1/tone.wav'],
    ])('refuses a file URL pointing at %s', async (_label, url) => {
      const response = await http('POST', `${api}/v1/audio/transcriptions`, {
        token: apiKey,
        body: { file: url },
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        param: 'file',
        message: expect.stringContaining('not fetched'),
      });
    });

    it('refuses a file URL that is not http(s)', async () => {
      const response = await http('POST', `${api}/v1/audio/transcriptions`, {
        token: apiKey,
        body: { file: 'file:///etc/passwd' },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('file');
    });

    it('requires credentials before reading an upload', async () => {
      const form = new FormData();
      form.append('file', new Blob([tone]), 'tone.wav');
      const response = await fetch(`${api}/v1/audio/transcriptions`, { method: 'POST', body: form });
      expect(response.status).toBe(401);
    });
  });

  it('records transcriptions in history as requestType audio with their cost', async () => {
    // Settlement is asynchronous (a durable event), so the history catches up within a bound.
    const items = await expectEventually(async () => {
      const page = await http('GET', `${api}/v1/history/generations?requestType=audio&limit=100`, {
        token: apiKey,
      });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeGreaterThanOrEqual(8);
      return page.body.items as Array<{
        id: string;
        model: string;
        requestType: string;
        cost: string;
        status: string;
      }>;
    });
    expect(items.every((item) => item.requestType === 'audio')).toBe(true);
    const whisper = items.find((item) => item.model === 'demo/whisper' && item.status === 'completed');
    expect(Number(whisper?.cost)).toBeGreaterThan(0);
    const detail = await http('GET', `${api}/v1/history/generations/${whisper?.id}`, { token: apiKey });
    expect(detail.body).toMatchObject({
      requestType: 'audio',
      apiType: 'transcriptions',
      responseMode: 'sync',
    });
  });
});
