import { randomUUID } from 'node:crypto';
import { lastValueFrom, toArray } from 'rxjs';
import { FormatRequest, FormatsContracts, Principal } from '@gw/contracts';
import { InferenceTestApp, POOR_ORGANIZATION } from './inference-test-app';

describe('inference Responses and Messages over NATS, Postgres and mock-upstream', () => {
  let app: InferenceTestApp;
  const principal: Principal = {
    kind: 'api_key',
    organizationId: randomUUID(),
    apiKeyId: randomUUID(),
    apiKeyName: 'test key',
    apiKeyShort: 'abc123',
    userId: null,
  };
  const request = (body: Record<string, unknown>, who: Principal = principal): FormatRequest => ({ principal: who, body }) as unknown as FormatRequest;

  beforeAll(async () => {
    app = await InferenceTestApp.start({ UPSTREAM_TIMEOUT_MS: 1_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  it('answers a Responses request through Mock Alpha and records it as apiType responses', async () => {
    const generationId = `gen-${randomUUID()}`;
    const response = await app.rpc.request(FormatsContracts.responses, {
      ...request({ model: 'demo/chat', instructions: 'be brief', input: 'hello there', provider: { only: ['Mock Alpha'] } }),
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
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello there' }] }],
      usage: { input_tokens: 12, output_tokens: 2, total_tokens: 14, cost_rub: 0.003, cost: 0.003 },
    });
    expect(await app.eventOf(generationId)).toMatchObject({ apiType: 'responses', responseMode: 'sync', status: 'completed', cost: '0.003' });
  });

  it('streams the Responses events through Mock Beta, numbered, ending with usage', async () => {
    const stream = await lastValueFrom(
      app.rpc.stream(FormatsContracts.responsesStream, request({ model: 'demo/chat', input: 'alpha beta gamma', stream: true, provider: { only: ['Mock Beta'] } })).pipe(toArray()),
    );
    expect(stream[0].event).toBe('response.created');
    expect(stream.map((e) => e.data.sequence_number)).toEqual(stream.map((_e, i) => i));
    const text = stream.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta).join('');
    expect(text).toBe('alpha beta gamma');
    const completed = stream.at(-1);
    expect(completed?.event).toBe('response.completed');
    expect(completed?.data.response).toMatchObject({ status: 'completed', provider: 'Mock Beta', usage: { output_tokens: 3 } });
    const id = (completed?.data.response as { id: string }).id;
    expect(await app.eventOf(id)).toMatchObject({ apiType: 'responses', responseMode: 'stream', provider: 'Mock Beta' });
  });

  it('answers a Messages request through Mock Beta and records it as apiType messages', async () => {
    const message = await app.rpc.request(
      FormatsContracts.messages,
      request({ model: 'demo/chat', max_tokens: 1, system: 'be brief', messages: [{ role: 'user', content: 'one two' }], provider: { only: ['Mock Beta'] } }),
    );
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'demo/chat', provider: 'Mock Beta', content: [{ type: 'text', text: 'one' }], stop_reason: 'max_tokens' });
    expect(await app.eventOf(message.id)).toMatchObject({ apiType: 'messages', responseMode: 'sync', finishReason: 'length' });
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
    expect(stream.map((e) => e.event)).toEqual(expect.arrayContaining(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']));
    expect(stream.find((e) => e.event === 'content_block_start')?.data.content_block).toMatchObject({ type: 'tool_use', name: 'lookup' });
    const json = stream.filter((e) => e.event === 'content_block_delta').map((e) => (e.data.delta as { partial_json: string }).partial_json).join('');
    expect(JSON.parse(json)).toEqual({ text: 'find it' });
    expect(stream.find((e) => e.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } });
  });

  it('ends a stream the provider drops after output with the format error event', async () => {
    const stream = await lastValueFrom(
      app.rpc
        .stream(FormatsContracts.responsesStream, request({ model: 'demo/chat', input: 'one two [[drop]]', provider: { only: ['Mock Alpha'] } }))
        .pipe(toArray()),
    );
    expect(stream.at(-1)?.data).toMatchObject({ type: 'error', code: 'upstream_error', sequence_number: stream.length - 1 });
  });

  it('fails a stream refused before the start with the coded error', async () => {
    const poor: Principal = { kind: 'user', organizationId: POOR_ORGANIZATION, userId: randomUUID(), role: 'admin' };
    await expect(
      lastValueFrom(app.rpc.stream(FormatsContracts.messagesStream, request({ model: 'demo/chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }, poor))),
    ).rejects.toMatchObject({ code: 'insufficient_balance', status: 402 });
  });

  it.each([
    ['messages without max_tokens', { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] }, 'body.max_tokens'],
    ['a tool_result in an assistant turn', { model: 'demo/chat', max_tokens: 8, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }] }, 'body.messages[0].content'],
  ])('validates %s on the service side', async (_name, body, param) => {
    await expect(app.rpc.request(FormatsContracts.messages, request(body))).rejects.toMatchObject({ code: 'invalid_request', param });
  });

  it('validates a Responses input on the service side', async () => {
    await expect(app.rpc.request(FormatsContracts.responses, request({ model: 'demo/chat', input: [{ type: 'file_search_call' }] }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'body.input',
    });
  });
});
