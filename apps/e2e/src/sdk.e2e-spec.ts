import Anthropic from '@anthropic-ai/sdk';
import { expectEventually } from '@gw/testing';
import OpenAI from 'openai';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http } from './support/gateway-http';

/** The official SDKs against the built embedded app: what a user of OpenAI's or Anthropic's client meets. */
describe('official SDKs against the embedded gateway', () => {
  let gateway: EmbeddedGateway;
  let api: string;
  let apiKey: string;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('sdk');
    api = gateway.api;
    apiKey = gateway.apiKey;
    openai = new OpenAI({ apiKey, baseURL: `${api}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey, baseURL: api, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  /** The `event:` and `data:` pairs of a named-event SSE body. */
  const namedEvents = (text: string) =>
    text
      .split('\n\n')
      .filter((block) => block.trim() !== '')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return {
          event: eventLine.replace(/^event: /, ''),
          data: JSON.parse(dataLine.replace(/^data: /, '')),
        };
      });

  const apiTypeOf = (id: string) =>
    expectEventually(async () => {
      const detail = await http('GET', `${api}/v1/history/generations/${id}`, { token: apiKey });
      expect(detail.status).toBe(200);
      return detail.body.apiType as string;
    });

  it('documents both routes in the OpenAPI document, with examples', async () => {
    const doc = (await http('GET', `${api}/docs-json`)).body;
    for (const path of ['/api/v1/responses', '/api/v1/messages']) {
      expect(Object.keys(doc.paths[path].post.requestBody.content['application/json'].examples)).toEqual([
        'text',
        'tools',
        'routed',
      ]);
      expect(doc.paths[path].post.responses['200'].content).toHaveProperty('text/event-stream');
    }
  });

  describe('openai chat completions', () => {
    it('creates a completion with the cost in usage', async () => {
      const completion = await openai.chat.completions.create({
        model: 'demo/chat',
        messages: [{ role: 'user', content: 'openai says hi' }],
      });
      expect(completion.choices[0].message.content).toContain('openai says hi');
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect((completion.usage as unknown as { cost_rub: number }).cost_rub).toBeGreaterThan(0);
    });

    it("takes the SDK's reasoning_effort, and refuses an effort the model does not support on that field", async () => {
      const completion = await openai.chat.completions.create({
        model: 'demo/chat',
        reasoning_effort: 'low',
        messages: [{ role: 'user', content: 'think a little' }],
      });
      expect(completion.choices[0].message.content).toContain('think a little');
      const refused = await openai.chat.completions
        .create({
          model: 'demo/chat',
          reasoning_effort: 'minimal',
          messages: [{ role: 'user', content: 'x' }],
        })
        .catch((err: { status: number }) => err);
      expect((refused as { status: number }).status).toBe(400);
    });

    it('streams chunks whose last one carries usage', async () => {
      const stream = await openai.chat.completions.create({
        model: 'demo/chat',
        stream: true,
        messages: [{ role: 'user', content: 'streamed echo please' }],
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toContain('streamed echo please');
      expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: 3 });
    });

    it('answers tool_choice required with a tool call', async () => {
      const completion = await openai.chat.completions.create({
        model: 'demo/chat',
        messages: [{ role: 'user', content: 'weather in Moscow' }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              parameters: { type: 'object', properties: { text: { type: 'string' } } },
            },
          },
        ],
        tool_choice: 'required',
      });
      const call = completion.choices[0].message.tool_calls?.[0];
      expect(completion.choices[0].finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : null).toEqual({
        text: 'weather in Moscow',
      });
    });
  });

  describe('openai responses', () => {
    it('creates a response whose output_text echoes the input, recorded as apiType responses', async () => {
      const response = await openai.responses.create({
        model: 'demo/chat',
        instructions: 'be brief',
        input: 'responses plain call',
        max_output_tokens: 50,
      });
      expect(response.output_text).toBe('responses plain call');
      expect(response).toMatchObject({
        object: 'response',
        status: 'completed',
        model: 'demo/chat',
        usage: { output_tokens: 3 },
      });
      expect((response.usage as unknown as { cost_rub: number }).cost_rub).toBeGreaterThan(0);
      expect(await apiTypeOf(response.id)).toBe('responses');
    });

    it('streams the native events, ending with response.completed and usage', async () => {
      const stream = await openai.responses.create({
        model: 'demo/chat',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'responses stream call' }] }],
        stream: true,
      });
      const types: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      expect(text).toBe('responses stream call');
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(completed?.usage?.total_tokens).toBeGreaterThan(0);
    });

    it('gives output_text through the stream helper, routed to the Anthropic wire of Mock Beta', async () => {
      const response = await openai.responses
        .stream({ model: 'demo/chat@provider=Mock Beta', input: 'through beta' })
        .finalResponse();
      expect(response.output_text).toBe('through beta');
      expect((response as unknown as { provider: string }).provider).toBe('Mock Beta');
    });

    it('answers a function tool with a function_call item', async () => {
      const response = await openai.responses.create({
        model: 'demo/chat',
        input: 'call it',
        tools: [
          {
            type: 'function',
            name: 'lookup',
            parameters: { type: 'object', properties: { text: { type: 'string' } } },
            strict: false,
          },
        ],
        tool_choice: 'required',
      });
      expect(response.output).toEqual([
        expect.objectContaining({ type: 'function_call', name: 'lookup', arguments: '{"text":"call it"}' }),
      ]);
    });

    it('frames every event with its name, a data type of the same name and consecutive sequence numbers', async () => {
      const res = await http('POST', `${api}/v1/responses`, {
        token: apiKey,
        body: { model: 'demo/chat', input: 'framed words', stream: true },
      });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = namedEvents(res.text);
      expect(events.every(({ event, data }) => data.type === event)).toBe(true);
      expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_e, i) => i));
      expect(res.text).not.toContain('[DONE]');
    });

    it('refuses an invalid body with a 400 naming the parameter', async () => {
      const error = await openai.responses
        .create({ model: 'demo/chat', input: 'x', max_output_tokens: 0 })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('max_output_tokens');
    });
  });

  describe('anthropic messages', () => {
    it.each(['Mock Alpha', 'Mock Beta'])(
      'creates a message through %s, recorded as apiType messages',
      async (provider) => {
        const message = await anthropic.messages.create({
          model: `demo/chat@provider=${provider}`,
          max_tokens: 64,
          system: 'be brief',
          messages: [{ role: 'user', content: `anthropic via ${provider}` }],
        });
        expect(message).toMatchObject({
          type: 'message',
          role: 'assistant',
          model: 'demo/chat',
          stop_reason: 'end_turn',
          provider,
        });
        expect(message.content).toEqual([{ type: 'text', text: `anthropic via ${provider}` }]);
        expect(message.usage.output_tokens).toBe(4);
        expect((message.usage as unknown as { cost_rub: number }).cost_rub).toBeGreaterThan(0);
        expect(await apiTypeOf(message.id)).toBe('messages');
      },
    );

    it.each(['Mock Alpha', 'Mock Beta'])('streams through %s to a final message', async (provider) => {
      const stream = anthropic.messages.stream({
        model: 'demo/chat',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'streamed anthropic words' }],
        provider: { only: [provider] },
      } as Anthropic.MessageStreamParams);
      const deltas: string[] = [];
      stream.on('text', (delta) => deltas.push(delta));
      const message = await stream.finalMessage();
      expect(deltas.join('')).toBe('streamed anthropic words');
      expect(message.content).toEqual([{ type: 'text', text: 'streamed anthropic words' }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject({ output_tokens: 3, input_tokens: expect.any(Number) });
      expect(message.usage.input_tokens).toBeGreaterThan(0);
    });

    it('answers tool_choice any with a tool_use block, streamed too', async () => {
      const request = {
        model: 'demo/chat',
        max_tokens: 64,
        messages: [{ role: 'user' as const, content: 'use the tool' }],
        tools: [
          {
            name: 'lookup',
            input_schema: { type: 'object' as const, properties: { text: { type: 'string' } } },
          },
        ],
        tool_choice: { type: 'any' as const },
      };
      const plain = await anthropic.messages.create(request);
      expect(plain.stop_reason).toBe('tool_use');
      expect(plain.content).toEqual([
        expect.objectContaining({ type: 'tool_use', name: 'lookup', input: { text: 'use the tool' } }),
      ]);
      const streamed = await anthropic.messages.stream(request).finalMessage();
      expect(streamed.content).toEqual([
        expect.objectContaining({ type: 'tool_use', name: 'lookup', input: { text: 'use the tool' } }),
      ]);
    });

    it('reports a stream broken off after the start as an error event the SDK raises', async () => {
      const stream = anthropic.messages.stream({
        model: 'demo/chat@provider=Mock Alpha',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'one two [[drop]]' }],
      });
      await expect(stream.finalMessage()).rejects.toMatchObject({
        error: { type: 'error', error: { type: 'api_error' } },
      });
    });

    it('accepts the key as x-api-key or bearer, and refuses a wrong one with 401', async () => {
      const body = { model: 'demo/chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
      expect(
        (
          await http('POST', `${api}/v1/messages`, {
            headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
            body,
          })
        ).status,
      ).toBe(200);
      expect((await http('POST', `${api}/v1/messages`, { token: apiKey, body })).status).toBe(200);
      const wrong = new Anthropic({ apiKey: 'sk-gw-wrong', baseURL: api, maxRetries: 0 });
      await expect(
        wrong.messages.create({
          model: 'demo/chat',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
      expect(
        (
          await http('POST', `${api}/v1/responses`, {
            headers: { 'x-api-key': apiKey },
            body: { model: 'demo/chat', input: 'hi' },
          })
        ).status,
      ).toBe(401);
    });

    it('streams the native events over plain HTTP with x-api-key', async () => {
      const res = await http('POST', `${api}/v1/messages`, {
        headers: { 'x-api-key': apiKey },
        body: {
          model: 'demo/chat',
          max_tokens: 16,
          stream: true,
          messages: [{ role: 'user', content: 'raw events' }],
        },
      });
      const events = namedEvents(res.text);
      expect(events.map(({ event }) => event)).toEqual([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(events.every(({ event, data }) => data.type === event)).toBe(true);
    });

    it('requires max_tokens, naming it', async () => {
      const res = await http('POST', `${api}/v1/messages`, {
        token: apiKey,
        body: { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens' });
    });
  });
});
