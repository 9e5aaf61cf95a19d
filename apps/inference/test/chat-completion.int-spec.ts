import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { lastValueFrom, toArray } from 'rxjs';
import { DataSource } from 'typeorm';
import {
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type GenerationFinishedEvent,
  InferenceContracts,
  type Principal,
} from '@gw/contracts';
import { apiKeyPrincipal, expectEventually, POOR_ORGANIZATION } from '@gw/testing';
import { DEMO_CATALOGUE, InferenceTestApp } from './inference-test-app';

/** Mock Alpha may take at most this long to its first output on `test/ttft`; Mock Beta gets FIRST_TOKEN_TIMEOUT_MS. */
const ALPHA_FIRST_TOKEN_MS = 200;

/** Mock Alpha's limits on `test/limits`, below Mock Beta's (the demo's 128 000 prompt and 4096 completion tokens). */
const ALPHA_LIMITS = { context_length: 1_000, max_completion_tokens: 100 };

/**
 * The demo catalogue plus `test/ttft`: demo/chat whose first provider has a short first-token deadline,
 * and `test/limits`: demo/chat whose first provider takes shorter prompts and completions.
 */
function catalogueWithDeadline(): string {
  const catalogue = JSON.parse(readFileSync(DEMO_CATALOGUE, 'utf8'));
  const chat = catalogue.models.find((m: { id: string }) => m.id === 'demo/chat');
  const ttft = structuredClone(chat);
  ttft.id = 'test/ttft';
  ttft.providers[0].routing.firstTokenTimeoutMs = ALPHA_FIRST_TOKEN_MS;
  const limits = structuredClone(chat);
  limits.id = 'test/limits';
  Object.assign(limits.providers[0], ALPHA_LIMITS, {
    per_request_limits: { prompt_tokens: null, completion_tokens: null },
  });
  catalogue.models.push(ttft, limits);
  const file = join(mkdtempSync(join(tmpdir(), 'catalogue-')), 'catalogue.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

describe('inference chat completions over NATS, Postgres and mock-upstream', () => {
  let app: InferenceTestApp;
  const organizationId = randomUUID();
  const principal = apiKeyPrincipal({ organizationId });
  const chat = (body: Record<string, unknown>, who: Principal = principal): ChatCompletionRequest =>
    ({ principal: who, apiType: 'chat_completions', body }) as unknown as ChatCompletionRequest;
  const user = (text: string) => [{ role: 'user', content: text }];

  beforeAll(async () => {
    // Two replicas in the queue group, so a cancellation must reach whichever runs the generation.
    app = await InferenceTestApp.start(
      { CATALOGUE_FILE: catalogueWithDeadline(), UPSTREAM_TIMEOUT_MS: 1_000, FIRST_TOKEN_TIMEOUT_MS: 5_000 },
      2,
    );
  });

  afterAll(async () => {
    await app.stop();
  });

  it('lists the catalogue without routing data', async () => {
    const list = await app.rpc.request(InferenceContracts.listModels, {});
    expect(list.data.map((m) => m.id)).toEqual(
      expect.arrayContaining([
        'demo/chat',
        'demo/chat-fallback',
        'demo/embed-small',
        'demo/embed-large',
        'demo/whisper',
        'demo/transcribe-diarize',
        'demo/image',
        'demo/image-classic',
        'demo/video',
        'demo/tts',
      ]),
    );
    const chatModel = list.data.find((m) => m.id === 'demo/chat');
    expect(chatModel?.providers.map((p) => p.name)).toEqual(['Mock Alpha', 'Mock Beta']);
    expect(chatModel?.top_provider.pricing.prompt_per_million).toBe('150.00');
    expect(JSON.stringify(list)).not.toMatch(/routing|baseUrl|apiKeyEnv|MOCK_UPSTREAM/);
  });

  it('answers a plain completion, reserves first and publishes the completed event with its cost', async () => {
    const result = await app.rpc.request(
      InferenceContracts.chatCompletion,
      chat({ model: 'demo/chat', messages: user('hello there') }),
    );
    // Mock Alpha: prompt 2 words + 4 = 6 tokens, completion 2; 6 × 150/M + 2 × 600/M = 0.0021 RUB.
    expect(result).toMatchObject({
      object: 'chat.completion',
      model: 'demo/chat',
      provider: 'Mock Alpha',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8, cost_rub: 0.0021, cost: 0.0021 },
    });
    expect(result.id).toMatch(/^gen-[0-9a-f-]{36}$/);
    const reserve = app.reserveRequests.find((r) => r.generationId === result.id);
    expect(reserve).toMatchObject({
      organizationId,
      apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : null,
      // The context lets billing record a hold that expires unsettled as a failed generation of this model.
      model: 'demo/chat',
      requestType: 'chat',
      apiType: 'chat_completions',
      responseMode: 'sync',
    });
    // The first hold is sized at the provider tried first (Mock Alpha, 150/600 per M): the prompt's estimate (11 bytes,
    // 3 tokens) and 4 for its one message, and, as this model has not answered yet, FIRST_HOLD_COMPLETION_TOKENS (256)
    // of completion, at least MIN_COMPLETION_TOKENS (16); it grows as the answer does.
    expect(reserve?.maxAmount).toBe('0.15465');
    expect(reserve?.minAmount).toBe('0.01065');
    expect(await app.eventOf(result.id)).toMatchObject({
      organizationId,
      status: 'completed',
      cost: '0.0021',
      provider: 'Mock Alpha',
      model: 'demo/chat',
      modelDisplayName: 'Demo Chat',
      requestType: 'chat',
      apiType: 'chat_completions',
      responseMode: 'sync',
      finishReason: 'stop',
      usage: { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 },
      attemptsCount: 1,
      apiKeyShort: 'abc123',
    });
  });

  it('reserves exactly the cost bound when the client sets max_tokens and passes it on', async () => {
    const result = await app.rpc.request(
      InferenceContracts.chatCompletion,
      chat({
        model: 'demo/chat',
        prompt: 'one two three four',
        max_tokens: 2,
        provider: { only: ['Mock Alpha'] },
      }),
    );
    expect(result.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'length' });
    const reserve = app.reserveRequests.find((r) => r.generationId === result.id);
    expect(reserve?.maxAmount).toBe(reserve?.minAmount);
  });

  it('streams chunks whose last one carries usage with the cost', async () => {
    const chunks = await lastValueFrom(
      app.rpc
        .stream(
          InferenceContracts.chatCompletionStream,
          chat({ model: 'demo/chat', messages: user('alpha beta gamma'), stream: true }),
        )
        .pipe(toArray()),
    );
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'demo/chat')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('alpha beta gamma');
    const last = chunks.at(-1);
    // 7 prompt tokens × 150/M + 3 completion tokens × 600/M = 0.00285 RUB.
    expect(last).toMatchObject({
      choices: [{ finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, cost_rub: 0.00285, cost: 0.00285 },
    });
    expect(await app.eventOf(chunks[0].id)).toMatchObject({
      status: 'completed',
      cost: '0.00285',
      responseMode: 'stream',
    });
  });

  it('falls back from Mock Broken to Mock Alpha and records both attempts', async () => {
    const result = await app.rpc.request(
      InferenceContracts.chatCompletion,
      chat({ model: 'demo/chat-fallback', messages: user('still here') }),
    );
    expect(result).toMatchObject({
      provider: 'Mock Alpha',
      choices: [{ message: { content: 'still here' } }],
    });
    expect(await app.eventOf(result.id)).toMatchObject({
      status: 'completed',
      provider: 'Mock Alpha',
      attemptsCount: 2,
    });
    const ds = new DataSource({ type: 'postgres', url: app.db.url });
    await ds.initialize();
    const attempts = await ds.query(
      `SELECT provider, status, http_status FROM inference.request_attempts WHERE generation_id = $1 ORDER BY attempt`,
      [result.id],
    );
    try {
      expect(attempts).toEqual([
        { provider: 'Mock Broken', status: 'failed', http_status: 502 },
        { provider: 'Mock Alpha', status: 'completed', http_status: null },
      ]);
      // The published mark is group-committed after the publish (decision 120), so it may land just after the event.
      await expectEventually(async () => {
        const outbox = await ds.query(
          `SELECT published_at FROM inference.event_outbox WHERE message_id = $1`,
          [result.id],
        );
        expect(outbox[0].published_at).not.toBeNull();
      });
    } finally {
      await ds.destroy();
    }
  });

  it('stores every one of many generations finishing at once with its attempts, and marks each published', async () => {
    // They finish while one another's commits are in flight, so the recorder stores them in shared batches.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.rpc.request(
          InferenceContracts.chatCompletion,
          chat({ model: 'demo/chat', messages: user(`batch ${i}`) }),
          { timeoutMs: 60_000 },
        ),
      ),
    );
    const ids = results.map((r) => r.id);
    const ds = new DataSource({ type: 'postgres', url: app.db.url });
    await ds.initialize();
    try {
      const attempts: Array<{ generation_id: string; n: string }> = await ds.query(
        `SELECT generation_id, count(*) AS n FROM inference.request_attempts WHERE generation_id = ANY($1) GROUP BY 1`,
        [ids],
      );
      expect(attempts).toHaveLength(ids.length);
      expect(attempts.every((a) => Number(a.n) === 1)).toBe(true);
      await expectEventually(async () => {
        const unpublished = await ds.query(
          `SELECT message_id FROM inference.event_outbox WHERE message_id = ANY($1) AND published_at IS NULL`,
          [ids],
        );
        const stored = await ds.query(
          `SELECT count(*) AS n FROM inference.event_outbox WHERE message_id = ANY($1)`,
          [ids],
        );
        expect({ stored: Number(stored[0].n), unpublished }).toEqual({ stored: ids.length, unpublished: [] });
      });
    } finally {
      await ds.destroy();
    }
  });

  it('falls back in a stream before any output', async () => {
    const chunks = await lastValueFrom(
      app.rpc
        .stream(
          InferenceContracts.chatCompletionStream,
          chat({ model: 'demo/chat-fallback', messages: user('streamed fallback') }),
        )
        .pipe(toArray()),
    );
    expect(chunks.at(-1)?.provider).toBe('Mock Alpha');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('streamed fallback');
  });

  it('answers upstream_error for [[fail:502]] on every provider and publishes a failed event costing 0', async () => {
    const before = new Set(app.events.keys());
    await expect(
      app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({ model: 'demo/chat', messages: user('boom [[fail:502]]') }),
      ),
    ).rejects.toMatchObject({ code: 'upstream_error', status: 502 });
    const failed = await expectEventually(() => {
      const event = [...app.events.values()].find(
        (e) => !before.has(e.generationId) && e.status === 'failed',
      );
      expect(event).toBeDefined();
      return event as GenerationFinishedEvent;
    });
    expect(failed).toMatchObject({
      cost: '0',
      usage: null,
      attemptsCount: 2,
      error: { code: 'upstream_error' },
    });
  });

  it('answers upstream_timeout when the provider is slower than UPSTREAM_TIMEOUT_MS', async () => {
    await expect(
      app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({
          model: 'demo/chat',
          messages: user('[[delay:1500]] late'),
          provider: { only: ['Mock Alpha'] },
        }),
      ),
    ).rejects.toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it('ends a stream with upstream_error when the provider drops it after output, and charges what was produced', async () => {
    const seen: string[] = [];
    let id = '';
    let last: ChatCompletionChunk | undefined;
    const error = await new Promise<unknown>((resolve) =>
      app.rpc
        .stream(
          InferenceContracts.chatCompletionStream,
          chat({
            model: 'demo/chat',
            messages: user('one two [[drop]]'),
            provider: { only: ['Mock Alpha'] },
          }),
        )
        .subscribe({
          next: (c) => {
            id = c.id;
            last = c;
            seen.push(c.choices[0]?.delta.content ?? '');
          },
          error: resolve,
          complete: () => resolve(null),
        }),
    );
    expect(seen.join('')).toBe('one');
    expect(error).toMatchObject({ code: 'upstream_error' });
    // The charge is told before the error: a chunk of usage alone, as the stream's last.
    expect(last).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5, cost_rub: 0.0012, cost: 0.0012 },
    });
    // No usage was reported before the cut, so both counts are estimated (never the reservation's bound): the prompt's
    // 16 bytes as 4 tokens and 'one' as 1, at Mock Alpha's prices: 4 × 150/M + 1 × 600/M.
    expect(await app.eventOf(id)).toMatchObject({
      status: 'failed',
      cost: '0.0012',
      usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
      provider: 'Mock Alpha',
      error: { code: 'upstream_error' },
      isCancelled: false,
    });
  });

  it.each(['Mock Alpha', 'Mock Beta'])(
    'charges a stream cut by %s no more than the complete answer to the same request',
    async (provider) => {
      // [[delay:0]] is as inert as [[drop]] is not: the same words, so the same counts, and the answer runs to its end.
      const costOf = async (marker: string) => {
        const body = {
          model: 'demo/chat',
          messages: user(`count slowly from one to six ${marker}`),
          provider: { only: [provider] },
        };
        const chunks: ChatCompletionChunk[] = [];
        await new Promise<void>((resolve) =>
          app.rpc
            .stream(InferenceContracts.chatCompletionStream, chat(body))
            .subscribe({ next: (c) => chunks.push(c), error: () => resolve(), complete: resolve }),
        );
        return app.eventOf(chunks[0].id);
      };
      const complete = await costOf('[[delay:0]]');
      const cut = await costOf('[[drop]]');
      expect(complete.status).toBe('completed');
      expect(cut.status).toBe('failed');
      expect(Number(cut.cost)).toBeGreaterThan(0);
      expect(Number(cut.cost)).toBeLessThan(Number(complete.cost));
      // Mock Beta tells the prompt's count in message_start, before the cut: that is charged rather than an estimate.
      if (provider === 'Mock Beta') expect(cut.usage?.prompt_tokens).toBe(complete.usage?.prompt_tokens);
      else expect(cut.usage?.prompt_tokens).toBeLessThanOrEqual(complete.usage?.prompt_tokens ?? 0);
    },
  );

  it.each([
    ['Mock Alpha', 'finish_reason stop'],
    ['Mock Beta', 'stop_reason stop_sequence'],
  ])('sends stop to %s, which ends the answer before it (%s)', async (provider) => {
    const body = {
      model: 'demo/chat',
      messages: user('one two three four'),
      stop: ['three'],
      provider: { only: [provider] },
    };
    const result = await app.rpc.request(InferenceContracts.chatCompletion, chat(body));
    expect(result).toMatchObject({
      provider,
      choices: [{ message: { content: 'one two' }, finish_reason: 'stop' }],
      usage: { completion_tokens: 2 },
    });
  });

  describe('the size of a request', () => {
    const refusedBeforeReserving = async (body: Record<string, unknown>, param: string) => {
      const generationId = `gen-${randomUUID()}`;
      await expect(
        app.rpc.request(InferenceContracts.chatCompletion, { ...chat(body), generationId }),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
      expect(app.reserveRequests.some((r) => r.generationId === generationId)).toBe(false);
    };

    it.each([
      ['messages', { messages: user('a '.repeat(200_000)) }],
      ['prompt', { prompt: 'a '.repeat(200_000) }],
    ])(
      'refuses a 200 000-token prompt above every provider context on %s, before reserving',
      async (param, prompt) => {
        await refusedBeforeReserving({ model: 'demo/chat', ...prompt }, param);
      },
    );

    it.each(['max_tokens', 'max_completion_tokens'])(
      'refuses a %s above every provider maximum, before reserving',
      async (param) => {
        await refusedBeforeReserving({ model: 'demo/chat', messages: user('hi'), [param]: 4_097 }, param);
      },
    );

    it('serves an ordinary prompt near the limit, estimated realistically rather than by the reservation bound', async () => {
      // 120 000 words in 240 000 bytes: about 120 000 tokens (Mock Alpha counts 120 004), though the bound is twice that.
      const result = await app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({ model: 'demo/chat', messages: user('a '.repeat(120_000)), max_tokens: 1 }),
      );
      expect(result.usage.prompt_tokens).toBe(120_004);
    });

    it.each([
      ['a prompt longer than the first provider takes', { messages: user('word '.repeat(1_200)) }],
      [
        'a max_tokens above what the first provider produces',
        { messages: user('hi'), max_tokens: ALPHA_LIMITS.max_completion_tokens + 1 },
      ],
    ])('routes %s to a provider that takes it', async (_label, body) => {
      const result = await app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({ model: 'test/limits', ...body }),
      );
      expect(result.provider).toBe('Mock Beta');
    });
  });

  it.each([false, true])(
    'records a moderation block before output as failed at zero cost (stream %s)',
    async (stream) => {
      const body = chat({ model: 'demo/chat', messages: user('bad [[filter]]'), stream });
      const [id, finish, cost] = stream
        ? await lastValueFrom(
            app.rpc.stream(InferenceContracts.chatCompletionStream, body).pipe(toArray()),
          ).then((c) => [c[0].id, c.at(-1)?.choices[0].finish_reason, c.at(-1)?.usage?.cost_rub])
        : await app.rpc
            .request(InferenceContracts.chatCompletion, body)
            .then((r) => [r.id, r.choices[0].finish_reason, r.usage.cost_rub]);
      expect([finish, cost]).toEqual(['content_filter', 0]);
      expect(await app.eventOf(id as string)).toMatchObject({
        status: 'failed',
        cost: '0',
        finishReason: 'content_filter',
        error: { code: 'content_filter' },
      });
    },
  );

  it('costs the same streamed and not streamed', async () => {
    const body = {
      model: 'demo/chat',
      messages: user('same price either way'),
      provider: { only: ['Mock Beta'] },
    };
    const plain = await app.rpc.request(InferenceContracts.chatCompletion, chat(body));
    const chunks = await lastValueFrom(
      app.rpc
        .stream(InferenceContracts.chatCompletionStream, chat({ ...body, stream: true }))
        .pipe(toArray()),
    );
    expect(chunks.at(-1)?.usage).toEqual(plain.usage);
    expect((await app.eventOf(chunks[0].id)).cost).toBe((await app.eventOf(plain.id)).cost);
  });

  describe('the model alias', () => {
    it.each(['chat_completions', 'responses', 'messages'])(
      'routes by provider=, answers the canonical id on %s',
      async (apiType) => {
        const result = await app.rpc.request(InferenceContracts.chatCompletion, {
          ...chat({ model: 'demo/chat@provider=Mock Beta&reasoning_effort=low', messages: user('aliased') }),
          apiType,
        });
        expect(result).toMatchObject({ model: 'demo/chat', provider: 'Mock Beta' });
        expect(await app.eventOf(result.id)).toMatchObject({
          model: 'demo/chat',
          provider: 'Mock Beta',
          apiType,
        });
      },
    );

    it.each([
      ['an unknown key', 'demo/chat@colour=red'],
      ['a repeated key', 'demo/chat@provider=Mock Alpha&provider=Mock Beta'],
      ['an empty value', 'demo/chat@provider='],
      ['nothing after @', 'demo/chat@'],
      ['a key without =', 'demo/chat@provider'],
      ['a value containing =', 'demo/chat@provider=a=b'],
      ['a bad allow_fallbacks', 'demo/chat@allow_fallbacks=yes'],
    ])('answers 400 on model for %s', async (_label, model) => {
      await expect(
        app.rpc.request(InferenceContracts.chatCompletion, chat({ model, messages: user('x') })),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param: 'model' });
    });

    it.each([
      [
        'provider= with a provider object',
        { model: 'demo/chat@provider=Mock Beta', provider: { order: ['Mock Alpha'] } },
      ],
      [
        'reasoning_effort= with reasoning.effort',
        { model: 'demo/chat@reasoning_effort=low', reasoning: { effort: 'high' } },
      ],
      [
        'allow_fallbacks= with provider.allow_fallbacks',
        { model: 'demo/chat@allow_fallbacks=false', provider: { allow_fallbacks: true } },
      ],
    ])('answers 400 on model when it conflicts with the body: %s', async (_label, body) => {
      await expect(
        app.rpc.request(InferenceContracts.chatCompletion, chat({ ...body, messages: user('x') })),
      ).rejects.toMatchObject({ code: 'invalid_request', param: 'model' });
    });

    it('names model when the provider it names does not serve the model', async () => {
      await expect(
        app.rpc.request(
          InferenceContracts.chatCompletion,
          chat({ model: 'demo/chat@provider=Nope', messages: user('x') }),
        ),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        status: 400,
        param: 'model',
      });
      await expect(
        app.rpc.request(
          InferenceContracts.chatCompletion,
          chat({ model: 'demo/chat', provider: { only: ['Nope'] }, messages: user('x') }),
        ),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'provider',
      });
    });

    it('is an unknown model on other endpoints', async () => {
      await expect(
        app.rpc.request(InferenceContracts.chatCompletion, {
          ...chat({ model: 'demo/chat@provider=Mock Beta', messages: user('x') }),
          apiType: 'embeddings',
        }),
      ).rejects.toMatchObject({ code: 'invalid_model', param: 'model' });
    });

    it('answers 400 on reasoning.effort for an effort the model does not support', async () => {
      await expect(
        app.rpc.request(
          InferenceContracts.chatCompletion,
          chat({ model: 'demo/chat@reasoning_effort=xhigh', messages: user('x') }),
        ),
      ).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'reasoning.effort',
      });
    });

    it('turns fallbacks off with allow_fallbacks=false', async () => {
      await expect(
        app.rpc.request(
          InferenceContracts.chatCompletion,
          chat({ model: 'demo/chat-fallback@allow_fallbacks=false', messages: user('x') }),
        ),
      ).rejects.toMatchObject({
        code: 'upstream_error',
        status: 502,
      });
    });
  });

  describe('the first-token deadline', () => {
    it('falls back to the next provider when the first misses it, before the client saw anything', async () => {
      const started = Date.now();
      const chunks = await lastValueFrom(
        app.rpc
          .stream(
            InferenceContracts.chatCompletionStream,
            chat({ model: 'test/ttft', messages: user('[[delay:400]] eventually') }),
          )
          .pipe(toArray()),
      );
      expect(chunks.every((c) => c.provider === 'Mock Beta')).toBe(true);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('eventually');
      expect(Date.now() - started).toBeGreaterThanOrEqual(ALPHA_FIRST_TOKEN_MS + 400);
      expect(await app.eventOf(chunks[0].id)).toMatchObject({
        status: 'completed',
        provider: 'Mock Beta',
        attemptsCount: 2,
      });
      const ds = new DataSource({ type: 'postgres', url: app.db.url });
      await ds.initialize();
      const attempts = await ds.query(
        `SELECT provider, status, error_code FROM inference.request_attempts WHERE generation_id = $1 ORDER BY attempt`,
        [chunks[0].id],
      );
      await ds.destroy();
      expect(attempts).toEqual([
        { provider: 'Mock Alpha', status: 'failed', error_code: 'timeout' },
        { provider: 'Mock Beta', status: 'completed', error_code: null },
      ]);
    });

    it('answers upstream_timeout when fallbacks are off', async () => {
      await expect(
        lastValueFrom(
          app.rpc.stream(
            InferenceContracts.chatCompletionStream,
            chat({
              model: 'test/ttft',
              messages: user('[[delay:400]] x'),
              provider: { allow_fallbacks: false },
            }),
          ),
        ),
      ).rejects.toMatchObject({ code: 'upstream_timeout', status: 504 });
    });
  });

  describe('cancellation over NATS', () => {
    const cancel = (generationId: string) =>
      app.rpc.broadcast(InferenceContracts.cancelGeneration, { generationId });

    it('aborts mid-stream on whichever replica runs it, and charges what was produced', async () => {
      const ids = Array.from({ length: 4 }, () => `gen-${randomUUID()}`);
      await Promise.all(
        ids.map(
          (generationId) =>
            new Promise<void>((resolve, reject) => {
              const subscription = app.rpc
                .stream(InferenceContracts.chatCompletionStream, {
                  ...chat({ model: 'demo/chat', messages: user('a b c d e f g h [[slow:250]]') }),
                  generationId,
                })
                .subscribe({
                  next: () => {
                    // Over NATS unsubscribing alone does not reach the service; the broadcast does.
                    subscription.unsubscribe();
                    cancel(generationId).then(resolve, reject);
                  },
                  error: reject,
                });
            }),
        ),
      );
      for (const id of ids) {
        const event = await app.eventOf(id);
        expect(event).toMatchObject({ status: 'cancelled', isCancelled: true, provider: 'Mock Alpha' });
        expect(Number(event.cost)).toBeGreaterThan(0);
        expect(event.usage?.completion_tokens).toBeLessThan(8);
      }
    });

    it('aborts before the first output, even when the cancellation overtakes the request', async () => {
      const early = `gen-${randomUUID()}`;
      await cancel(early);
      const late = `gen-${randomUUID()}`;
      const streams = [early, late].map((generationId) =>
        app.rpc
          .stream(InferenceContracts.chatCompletionStream, {
            ...chat({ model: 'demo/chat', messages: user('[[delay:800]] never seen') }),
            generationId,
          })
          .subscribe({ error: () => undefined }),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await cancel(late);
      for (const id of [early, late])
        expect(await app.eventOf(id)).toMatchObject({ status: 'cancelled', isCancelled: true, cost: '0' });
      streams.forEach((s) => s.unsubscribe());
    });
  });

  it('passes billing 402 through and calls no provider', async () => {
    const poor: Principal = {
      kind: 'user',
      organizationId: POOR_ORGANIZATION,
      userId: randomUUID(),
      role: 'admin',
    };
    await expect(
      app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({ model: 'demo/chat', messages: user('hi') }, poor),
      ),
    ).rejects.toMatchObject({
      code: 'insufficient_balance',
      status: 402,
    });
  });

  it('answers invalid_model naming param model', async () => {
    await expect(
      app.rpc.request(InferenceContracts.chatCompletion, chat({ model: 'demo/nope', messages: user('hi') })),
    ).rejects.toMatchObject({
      code: 'invalid_model',
      status: 400,
      param: 'model',
    });
  });

  it.each([
    ['an embedding model', 'chat_completions', 'demo/embed-small'],
    ['a chat model on an endpoint its list does not name', 'embeddings', 'demo/chat'],
  ])('refuses %s with 400 on model, as its endpoints list says', async (_label, apiType, model) => {
    await expect(
      app.rpc.request(InferenceContracts.chatCompletion, {
        ...chat({ model, messages: user('hi') }),
        apiType,
      }),
    ).rejects.toMatchObject({
      code: 'invalid_model',
      status: 400,
      param: 'model',
      message: expect.stringContaining('is not served on'),
    });
  });

  it('validates the body on the service side', async () => {
    await expect(
      app.rpc.request(
        InferenceContracts.chatCompletion,
        chat({ model: 'demo/chat', messages: user('hi'), temperature: 3 }),
      ),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'body.temperature' });
  });

  it('answers through the Anthropic wire of Mock Beta', async () => {
    const result = await app.rpc.request(
      InferenceContracts.chatCompletion,
      chat({
        model: 'demo/chat',
        messages: [{ role: 'system', content: 'be brief' }, ...user('via beta')],
        provider: { only: ['Mock Beta'] },
      }),
    );
    // 2 + 4 system, 2 + 4 user = 12 prompt tokens × 200/M + 2 × 800/M = 0.004 RUB.
    expect(result).toMatchObject({
      provider: 'Mock Beta',
      choices: [{ message: { content: 'via beta' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 2, cost_rub: 0.004 },
    });
  });
});
