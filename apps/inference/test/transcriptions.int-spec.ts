import { randomUUID } from 'node:crypto';
import {
  type AudioFormat,
  type Principal,
  TranscriptionContracts,
  type TranscriptionParams,
  type TranscriptionReply,
} from '@gw/contracts';
import { flacFile, id3Tag, m4aFile, mp3Frames, oggFile, wavFile, webmFile } from './audio-fixtures';
import { InferenceTestApp } from './inference-test-app';
import { apiKeyPrincipal, POOR_ORGANIZATION } from '@gw/testing';

/** A mono 16-bit PCM WAV with a 440 Hz tone. */
function wav(seconds: number, rate = 16_000): Buffer {
  const data = Buffer.alloc(seconds * rate * 2);
  for (let i = 0; i < seconds * rate; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

interface TestAudio {
  bytes?: Buffer;
  filename?: string;
  format?: AudioFormat;
}

describe('inference transcriptions over NATS, Postgres and mock-upstream', () => {
  let app: InferenceTestApp;
  const principal = apiKeyPrincipal({ apiKeyName: 'k' });
  const twoSeconds = wav(2);

  /** The gateway's part: stage the bytes, send their key. */
  const staged = async ({ bytes = twoSeconds, filename = 'tone.wav', format = 'wav' }: TestAudio = {}) => ({
    key: await app.stage(bytes),
    size: bytes.length,
    filename,
    format,
  });
  const transcribe = async (params: TranscriptionParams, audio: TestAudio = {}, who: Principal = principal) =>
    app.rpc.request(TranscriptionContracts.transcribe, {
      principal: who,
      generationId: `gen-${randomUUID()}`,
      audio: await staged(audio),
      params,
    });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: { code: string; param?: string | null }) => ({ code: err.code, param: err.param ?? null }),
    );
  const json = (reply: TranscriptionReply) => {
    expect(reply.contentType).toBe('application/json');
    return reply.contentType === 'application/json' ? reply.result : null;
  };

  beforeAll(async () => {
    app = await InferenceTestApp.start({ UPSTREAM_TIMEOUT_MS: 2_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('answers verbose_json with segments and words, reserves the WAV duration and settles its cost', async () => {
    const reply = await transcribe({
      model: 'demo/whisper',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
      language: 'en',
    });
    const result = json(reply);
    // 2 s at 0.60 RUB per minute = 0.02 RUB.
    expect(result).toMatchObject({
      text: 'The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.',
      language: 'en',
      duration: 2,
      model: 'demo/whisper',
      usage: { durationSeconds: 2, cost: 0.02, cost_rub: 0.02 },
    });
    expect(result?.segments).toHaveLength(2);
    expect(result?.segments?.[1]).toMatchObject({
      id: 1,
      start: 1,
      end: 2,
      text: ' Pack my box with five dozen liquor jugs.',
    });
    expect(result?.words?.[0]).toEqual({ word: 'The', start: 0, end: expect.any(Number) });
    const reserve = app.reserveRequests.find((r) => r.generationId === reply.id);
    // The WAV header states the length, so the hold is exact.
    expect(reserve).toMatchObject({
      maxAmount: '0.02',
      minAmount: '0.02',
      model: 'demo/whisper',
      requestType: 'audio',
      apiType: 'transcriptions',
      responseMode: 'sync',
    });
    expect(await app.eventOf(reply.id)).toMatchObject({
      status: 'completed',
      cost: '0.02',
      provider: 'Mock Alpha',
      model: 'demo/whisper',
      requestType: 'audio',
      apiType: 'transcriptions',
      responseMode: 'sync',
      attemptsCount: 1,
      error: null,
    });
  });

  it('defaults to the classic model and json with text only', async () => {
    const result = json(await transcribe({}));
    expect(result).toEqual({
      text: expect.stringContaining('quick brown fox'),
      model: 'demo/whisper',
      usage: { durationSeconds: 2, cost: 0.02, cost_rub: 0.02 },
    });
  });

  it('takes every optional field written as null as left out: the default model, json, nothing null sent upstream', async () => {
    const unset = {
      model: null,
      language: null,
      prompt: null,
      response_format: null,
      temperature: null,
      timestamp_granularities: null,
      user: null,
      chunking_strategy: null,
      include: null,
      known_speaker_names: null,
      known_speaker_references: null,
      stream: null,
    };
    expect(json(await transcribe(unset as unknown as TranscriptionParams))).toEqual({
      text: expect.stringContaining('quick brown fox'),
      model: 'demo/whisper',
      usage: { durationSeconds: 2, cost: 0.02, cost_rub: 0.02 },
    });
    // A null language sent upstream would come back as the language "null"; left out, the provider detects it.
    const verbose = json(
      await transcribe({ ...unset, response_format: 'verbose_json' } as unknown as TranscriptionParams),
    );
    expect(verbose).toMatchObject({ language: 'en', model: 'demo/whisper' });
  });

  it('passes logprobs through for json', async () => {
    const result = json(await transcribe({ include: ['logprobs'] }));
    expect(result?.logprobs?.length).toBeGreaterThan(0);
  });

  it.each([
    ['text', 'text/plain', /^The quick brown fox .* liquor jugs\.$/],
    [
      'srt',
      'application/x-subrip',
      /^1\n00:00:00,000 --> 00:00:01,000\nThe quick brown fox jumps over the lazy dog\.\n\n2\n00:00:01,000 --> 00:00:02,000\n/,
    ],
    ['vtt', 'text/vtt', /^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.000\nThe quick brown fox/],
  ] as const)('renders %s as %s', async (format, contentType, body) => {
    const reply = await transcribe({ response_format: format });
    expect(reply.contentType).toBe(contentType);
    expect(reply.contentType !== 'application/json' && reply.body).toMatch(body);
  });

  it('marks speakers with the diarizing model', async () => {
    const result = json(
      await transcribe({
        model: 'demo/transcribe-diarize',
        response_format: 'diarized_json',
        known_speaker_names: ['Anna', 'Boris'],
      }),
    );
    expect(result?.segments?.map((s) => s.speaker)).toEqual(['Anna', 'Boris']);
    // 2 s at 0.90 RUB per minute.
    expect(result?.usage).toEqual({ durationSeconds: 2, cost: 0.03, cost_rub: 0.03 });
  });

  it('bounds the hold of a compressed file by bitrates and bills the duration the provider heard', async () => {
    // 16 000 bytes: a 154-byte ID3 tag and 38 frames of 128 kbit/s; at least 0.4 s (320 kbit/s), at most 16 s (8 kbit/s); mock-upstream hears 1 s (128 kbit/s).
    const mp3 = Buffer.concat([id3Tag(144), mp3Frames(38)]);
    const reply = await transcribe(
      { response_format: 'verbose_json' },
      { bytes: mp3, filename: 'a.mp3', format: 'mp3' },
    );
    expect(json(reply)?.usage).toEqual({ durationSeconds: 1, cost: 0.01, cost_rub: 0.01 });
    expect(app.reserveRequests.find((r) => r.generationId === reply.id)).toMatchObject({
      minAmount: '0.004',
      maxAmount: '0.16',
    });
  });

  it('bills a 1.0 s WAV as 1 s, its length by the sample layout', async () => {
    const reply = await transcribe({}, { bytes: wavFile({ seconds: 1 }) });
    expect(json(reply)?.usage).toEqual({ durationSeconds: 1, cost: 0.01, cost_rub: 0.01 });
    expect(app.reserveRequests.find((r) => r.generationId === reply.id)).toMatchObject({
      minAmount: '0.01',
      maxAmount: '0.01',
    });
  });

  it.each<[string, Buffer, AudioFormat]>([
    // The audit's file: 1.0 s at 16 kHz, 16-bit mono, block_align 2, 32 000 data bytes, byte_rate 1; it was billed as 32 000 s.
    [
      'a WAV whose byte_rate (1) contradicts sample_rate × block_align',
      wavFile({ seconds: 1, byteRate: 1 }),
      'wav',
    ],
    [
      'a WAV whose block_align contradicts its channels and sample size',
      wavFile({ seconds: 1, blockAlign: 4, byteRate: 64_000 }),
      'wav',
    ],
    ['a WAV with a sample rate of 0', wavFile({ seconds: 1, sampleRate: 0, byteRate: 32_000 }), 'wav'],
    [
      'a WAV at 500 Hz, 8-bit (4 kbit/s, below any speech codec)',
      wavFile({ seconds: 10, sampleRate: 500, bitsPerSample: 8 }),
      'wav',
    ],
    ['an MP3 without a frame', Buffer.concat([id3Tag(100), Buffer.alloc(5_000)]), 'mp3'],
    ['a FLAC header of 2^35 samples in 1 KB', flacFile(8_000, 2 ** 35, 1_000), 'flac'],
    [
      'an M4A movie header of 10 hours in 20 KB',
      m4aFile({ timescale: 1_000, duration: 36_000_000, audioBytes: 20_000 }),
      'm4a',
    ],
    ['an Ogg granule position of 10 hours in 20 KB', oggFile({ seconds: 36_000, audioBytes: 20_000 }), 'ogg'],
    [
      'a WebM cluster timestamp of 10 hours in 20 KB',
      webmFile({ clusters: [{ time: 36_000_000, blocks: [0] }], blockBytes: 20_000 }),
      'webm',
    ],
  ])('refuses %s on file before reserving', async (_label, bytes, format) => {
    const before = app.reserveRequests.length;
    expect(await refusal(transcribe({}, { bytes, filename: `a.${format}`, format }))).toEqual({
      code: 'invalid_request',
      param: 'file',
    });
    expect(app.reserveRequests.length).toBe(before);
  });

  it.each<[string, TranscriptionParams, TestAudio, string]>([
    ['streaming on the classic model', { stream: true }, {}, 'stream'],
    ['an unknown model', { model: 'demo/nope' }, {}, 'model'],
    ['a chat model', { model: 'demo/chat' }, {}, 'model'],
    ['a temperature above 1', { temperature: 1.5 }, {}, 'params.temperature'],
    [
      'five known speakers',
      { known_speaker_names: ['a', 'b', 'c', 'd', 'e'] },
      {},
      'params.known_speaker_names',
    ],
    ['a language that is not ISO-639-1', { language: 'english' }, {}, 'params.language'],
    ['content that does not match its format', {}, { format: 'mp3' }, 'file'],
    ['word timestamps with json', { timestamp_granularities: ['word'] }, {}, 'timestamp_granularities'],
  ])('refuses %s without reserving', async (_label, params, audio, param) => {
    const before = app.reserveRequests.length;
    expect(await refusal(transcribe(params, audio))).toEqual({
      code: expect.stringMatching(/^invalid_(request|model)$/),
      param,
    });
    expect(app.reserveRequests.length).toBe(before);
  });

  it('requires chunking_strategy for more than 30 s on the diarizing model', async () => {
    const long = wav(31, 2_000);
    expect(await refusal(transcribe({ model: 'demo/transcribe-diarize' }, { bytes: long }))).toEqual({
      code: 'invalid_request',
      param: 'chunking_strategy',
    });
    expect(
      json(await transcribe({ model: 'demo/transcribe-diarize', chunking_strategy: 'auto' }, { bytes: long }))
        ?.usage.durationSeconds,
    ).toBe(31);
  });

  it.each<[string, Buffer, AudioFormat]>([
    // The audit's file: 1 532 MPEG-1 layer III frames at 128 kbit/s, 40.02 s.
    ['an MP3 of 40 s by its frames', mp3Frames(1532), 'mp3'],
    ['a WAV of 45 s', wavFile({ seconds: 45, sampleRate: 2_000 }), 'wav'],
    ['a FLAC of 40 s by its STREAMINFO', flacFile(16_000, 16_000 * 40, 100_000), 'flac'],
    [
      'an M4A of 40 s by its movie header',
      m4aFile({ timescale: 44_100, duration: 44_100 * 40, audioBytes: 100_000 }),
      'm4a',
    ],
    ['an Ogg Opus of 40 s by its granule positions', oggFile({ seconds: 40, audioBytes: 100_000 }), 'ogg'],
    [
      'a live WebM of 40 s by its block timestamps',
      webmFile({
        clusters: [
          { time: 0, blocks: [0] },
          { time: 30_000, blocks: [0, 10_000] },
        ],
        blockBytes: 30_000,
        live: true,
      }),
      'webm',
    ],
  ])(
    'requires chunking_strategy on the diarizing model for %s, before reserving',
    async (_label, bytes, format) => {
      const audio = { bytes, filename: `long.${format}`, format };
      const before = app.reserveRequests.length;
      expect(await refusal(transcribe({ model: 'demo/transcribe-diarize' }, audio))).toEqual({
        code: 'invalid_request',
        param: 'chunking_strategy',
      });
      expect(app.reserveRequests.length).toBe(before);
      const reply = await transcribe(
        { model: 'demo/transcribe-diarize', chunking_strategy: 'auto', response_format: 'diarized_json' },
        audio,
      );
      expect(json(reply)?.usage.durationSeconds).toBeGreaterThan(0);
    },
  );

  it('bills the audit MP3 with chunking_strategy by the duration the provider heard', async () => {
    const mp3 = mp3Frames(1532);
    const reply = await transcribe(
      { model: 'demo/transcribe-diarize', chunking_strategy: 'auto' },
      { bytes: mp3, filename: 'long.mp3', format: 'mp3' },
    );
    // mock-upstream hears 638 844 bytes at 128 kbit/s: 39.928 s at 0.90 RUB per minute.
    expect(json(reply)?.usage).toEqual({ durationSeconds: 39.928, cost: 0.59892, cost_rub: 0.59892 });
    expect(await app.eventOf(reply.id)).toMatchObject({ status: 'completed', cost: '0.59892' });
  });

  it('refuses audio whose staged object is gone or is not the announced size, before reserving', async () => {
    const before = app.reserveRequests.length;
    const gone = await staged();
    await app.blobs.delete(gone.key);
    const wrongSize = { ...(await staged()), size: twoSeconds.length + 1 };
    for (const audio of [gone, wrongSize])
      expect(
        await refusal(
          app.rpc.request(TranscriptionContracts.transcribe, {
            principal,
            generationId: `gen-${randomUUID()}`,
            audio,
            params: {},
          }),
        ),
      ).toEqual({ code: 'invalid_request', param: 'file' });
    expect(app.reserveRequests.length).toBe(before);
  });

  it('passes a refusal by billing on without recording anything', async () => {
    const poor = { ...principal, organizationId: POOR_ORGANIZATION };
    expect(await refusal(transcribe({}, {}, poor))).toEqual({ code: 'insufficient_balance', param: null });
  });

  it('records a provider failure at zero cost', async () => {
    const generationId = `gen-${randomUUID()}`;
    const failed = app.rpc.request(TranscriptionContracts.transcribe, {
      principal,
      generationId,
      audio: await staged(),
      params: { prompt: '[[fail:502]]' },
    });
    expect(await refusal(failed)).toEqual({ code: 'upstream_error', param: null });
    expect(await app.eventOf(generationId)).toMatchObject({
      status: 'failed',
      cost: '0',
      requestType: 'audio',
      error: { code: 'upstream_error' },
    });
  });
});
