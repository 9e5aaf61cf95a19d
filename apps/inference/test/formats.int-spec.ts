import { randomUUID } from 'node:crypto';
import { lastValueFrom, toArray } from 'rxjs';
import { type FormatRequest, FormatsContracts, InferenceContracts, type Principal } from '@gw/contracts';
import { InferenceTestApp } from './inference-test-app';
import { apiKeyPrincipal, POOR_ORGANIZATION } from '@gw/testing';

describe('inference Responses and Messages over NATS, Postgres and mock-upstream', () => {
  let app: InferenceTestApp;
  const principal = apiKeyPrincipal();
  const request = (body: Record<string, unknown>, who: Principal = principal): FormatRequest =>
    ({ principal: who, body }) as unknown as FormatRequest;

  beforeAll(async () => {
    app = await InferenceTestApp.start({ UPSTREAM_TIMEOUT_MS: 1_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('answers a Responses request through Mock Alpha and records it as apiType responses', async () => {
    const generationId = `gen-${randomUUID()}`;
    const response = await app.rpc.request(FormatsContracts.responses, {
      ...request({
        model: 'demo/chat',
        instructions: 'be brief',
        input: 'hello there',
        provider: { only: ['Mock Alpha'] },
      }),
      generationId,
    });
    // 2 + 4 system, 2 + 4 user = 12 prompt tokens × 150/M + 2 × 600/M = 0.003 RUB.
    expect(response).toMatchObject({
      id: generationId,
      object: 'response',
      status: 'completed',
      model: 'demo/chat',
      provider: 'Mock Alpha',
      instructions: 'be brief',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello there' }] },
      ],
      usage: { input_tokens: 12, output_tokens: 2, total_tokens: 14, cost_rub: 0.003, cost: 0.003 },
    });
    expect(await app.eventOf(generationId)).toMatchObject({
      apiType: 'responses',
      responseMode: 'sync',
      status: 'completed',
      cost: '0.003',
    });
  });

  it('streams the Responses events through Mock Beta, numbered, ending with usage', async () => {
    const stream = await lastValueFrom(
      app.rpc
        .stream(
          FormatsContracts.responsesStream,
          request({
            model: 'demo/chat',
            input: 'alpha beta gamma',
            stream: true,
            provider: { only: ['Mock Beta'] },
          }),
        )
        .pipe(toArray()),
    );
    expect(stream[0].event).toBe('response.created');
    expect(stream.map((e) => e.data.sequence_number)).toEqual(stream.map((_e, i) => i));
    const text = stream
      .filter((e) => e.event === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');
    expect(text).toBe('alpha beta gamma');
    const completed = stream.at(-1);
    expect(completed?.event).toBe('response.completed');
    expect(completed?.data.response).toMatchObject({
      status: 'completed',
      provider: 'Mock Beta',
      usage: { output_tokens: 3 },
    });
    const id = (completed?.data.response as { id: string }).id;
    expect(await app.eventOf(id)).toMatchObject({
      apiType: 'responses',
      responseMode: 'stream',
      provider: 'Mock Beta',
    });
  });

  it('answers a Messages request through Mock Beta and records it as apiType messages', async () => {
    const message = await app.rpc.request(
      FormatsContracts.messages,
      request({
        model: 'demo/chat',
        max_tokens: 1,
        system: 'be brief',
        messages: [{ role: 'user', content: 'one two' }],
        provider: { only: ['Mock Beta'] },
      }),
    );
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'demo/chat',
      provider: 'Mock Beta',
      content: [{ type: 'text', text: 'one' }],
      stop_reason: 'max_tokens',
    });
    expect(await app.eventOf(message.id)).toMatchObject({
      apiType: 'messages',
      responseMode: 'sync',
      finishReason: 'length',
    });
  });

  it('streams the Messages events of a tool call through Mock Alpha', async () => {
    const stream = await lastValueFrom(
      app.rpc
        .stream(
          FormatsContracts.messagesStream,
          request({
            model: 'demo/chat',
            max_tokens: 64,
            stream: true,
            messages: [{ role: 'user', content: 'find it' }],
            tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
            tool_choice: { type: 'tool', name: 'lookup' },
            provider: { only: ['Mock Alpha'] },
          }),
        )
        .pipe(toArray()),
    );
    expect(stream.map((e) => e.event)).toEqual(
      expect.arrayContaining([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]),
    );
    expect(stream.find((e) => e.event === 'content_block_start')?.data.content_block).toMatchObject({
      type: 'tool_use',
      name: 'lookup',
    });
    const json = stream
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ text: 'find it' });
    expect(stream.find((e) => e.event === 'message_delta')?.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: 2 },
    });
  });

  it('ends a stream the provider drops after output with the format error event', async () => {
    const stream = await lastValueFrom(
      app.rpc
        .stream(
          FormatsContracts.responsesStream,
          request({ model: 'demo/chat', input: 'one two [[drop]]', provider: { only: ['Mock Alpha'] } }),
        )
        .pipe(toArray()),
    );
    expect(stream.at(-1)?.data).toMatchObject({
      type: 'error',
      code: 'upstream_error',
      sequence_number: stream.length - 1,
    });
  });

  it('fails a stream refused before the start with the coded error', async () => {
    const poor: Principal = {
      kind: 'user',
      organizationId: POOR_ORGANIZATION,
      userId: randomUUID(),
      role: 'admin',
    };
    await expect(
      lastValueFrom(
        app.rpc.stream(
          FormatsContracts.messagesStream,
          request({ model: 'demo/chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }, poor),
        ),
      ),
    ).rejects.toMatchObject({ code: 'insufficient_balance', status: 402 });
  });

  it.each([
    [
      'messages without max_tokens',
      { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] },
      'body.max_tokens',
    ],
    [
      'a tool_result in an assistant turn',
      {
        model: 'demo/chat',
        max_tokens: 8,
        messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }],
      },
      'body.messages[0].content',
    ],
    [
      'a message that is an empty list',
      { model: 'demo/chat', max_tokens: 8, messages: [[]] },
      'body.messages[0]',
    ],
  ])('validates %s on the service side', async (_name, body, param) => {
    // The validation may name the field or a part of it (`...content[0]`).
    await expect(app.rpc.request(FormatsContracts.messages, request(body))).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      param: expect.stringContaining(param),
    });
  });

  it('validates a Responses input on the service side', async () => {
    await expect(
      app.rpc.request(
        FormatsContracts.responses,
        request({ model: 'demo/chat', input: [{ type: 'file_search_call' }] }),
      ),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      param: expect.stringContaining('body.input'),
    });
  });

  describe('message_start of a Messages stream', () => {
    const stream = (provider: string) =>
      lastValueFrom(
        app.rpc
          .stream(
            FormatsContracts.messagesStream,
            request({
              model: 'demo/chat',
              max_tokens: 64,
              messages: [{ role: 'user', content: 'one two three' }],
              provider: { only: [provider] },
            }),
          )
          .pipe(toArray()),
      );

    it.each([
      // Mock Beta counts 3 words + 4 = 7 and says so in its own message_start.
      ['Mock Beta', "the provider's count, which it told before any output", 7],
      // Mock Alpha tells its usage only at the end: 'one two three' is estimated at 4 tokens until then.
      ['Mock Alpha', 'the realistic estimate when the provider tells its count only at the end', 4],
    ])(
      'carries the input tokens through %s: %s, and message_delta the final usage',
      async (provider, _how, inputTokens) => {
        const events = await stream(provider);
        expect(events[0]).toMatchObject({
          event: 'message_start',
          data: { message: { usage: { input_tokens: inputTokens, output_tokens: 0 } } },
        });
        expect(events.find((e) => e.event === 'message_delta')?.data).toMatchObject({
          usage: { input_tokens: 7, output_tokens: 3 },
        });
      },
    );
  });

  describe('a stream the provider cuts', () => {
    const eventOfStream = async (
      contract: typeof FormatsContracts.messagesStream,
      body: Record<string, unknown>,
    ) => {
      const generationId = `gen-${randomUUID()}`;
      await lastValueFrom(app.rpc.stream(contract, { ...request(body), generationId }).pipe(toArray()));
      return app.eventOf(generationId);
    };

    it.each([
      [
        'messages',
        FormatsContracts.messagesStream,
        (text: string) => ({ max_tokens: 64, messages: [{ role: 'user', content: text }] }),
      ],
      ['responses', FormatsContracts.responsesStream, (text: string) => ({ input: text })],
    ] as const)(
      'costs no more on /v1/%s than the complete answer to the same request',
      async (_api, contract, input) => {
        const body = (text: string) => ({
          model: 'demo/chat',
          provider: { only: ['Mock Alpha'] },
          ...input(text),
        });
        const complete = await eventOfStream(contract, body('one two [[delay:0]]'));
        const cut = await eventOfStream(contract, body('one two [[drop]]'));
        // Estimated, as Mock Alpha reported no usage before the cut: 16 bytes as 4 prompt tokens, 'one' as 1.
        expect(cut).toMatchObject({
          status: 'failed',
          usage: { prompt_tokens: 4, completion_tokens: 1 },
          cost: '0.0012',
        });
        expect(complete).toMatchObject({
          status: 'completed',
          usage: { prompt_tokens: 7, completion_tokens: 2 },
          cost: '0.00225',
        });
      },
    );
  });

  describe('stop sequences', () => {
    it.each(['Mock Alpha', 'Mock Beta'])(
      'pass stop_sequences on to %s, which ends the answer before them',
      async (provider) => {
        const message = await app.rpc.request(
          FormatsContracts.messages,
          request({
            model: 'demo/chat',
            max_tokens: 64,
            stop_sequences: ['END'],
            messages: [{ role: 'user', content: 'one two END three' }],
            provider: { only: [provider] },
          }),
        );
        expect(message).toMatchObject({
          provider,
          content: [{ type: 'text', text: 'one two' }],
          usage: { output_tokens: 2 },
        });
      },
    );
  });

  describe('the models each endpoint serves', () => {
    const ask: Record<'responses' | 'messages', (model: string) => Promise<unknown>> = {
      responses: (model) =>
        app.rpc.request(FormatsContracts.responses, request({ model, input: 'still here' })),
      messages: (model) =>
        app.rpc.request(
          FormatsContracts.messages,
          request({ model, max_tokens: 64, messages: [{ role: 'user', content: 'still here' }] }),
        ),
    };

    it.each(['responses', 'messages'] as const)(
      'serves demo/chat-fallback on /v1/%s, which its endpoints list',
      async (api) => {
        const list = await app.rpc.request(InferenceContracts.listModels, { endpoint: `/v1/${api}` });
        expect(list.data.map((m) => m.id)).toContain('demo/chat-fallback');
        expect(await ask[api]('demo/chat-fallback')).toMatchObject({
          model: 'demo/chat-fallback',
          provider: 'Mock Alpha',
        });
      },
    );

    it.each(['responses', 'messages'] as const)(
      'refuses on /v1/%s a model whose endpoints do not list it, with 400 on model',
      async (api) => {
        await expect(ask[api]('demo/embed-small')).rejects.toMatchObject({
          code: 'invalid_model',
          status: 400,
          param: 'model',
        });
      },
    );
  });

  it.each([
    ['input', { input: 'a '.repeat(200_000) }],
    ['max_output_tokens', { input: 'hi', max_output_tokens: 4_097 }],
  ])('names the Responses field %s when the request is too large for the model', async (param, fields) => {
    await expect(
      app.rpc.request(FormatsContracts.responses, request({ model: 'demo/chat', ...fields })),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
  });
});
