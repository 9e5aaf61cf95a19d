import { type INestApplication } from '@nestjs/common';
import { createMockUpstreamApp } from '../src/mock-upstream.module';
import { silentLogger } from '@gw/testing';

const auth = { authorization: 'Bearer test-key', 'content-type': 'application/json' };

/** Test bodies are asserted field by field, so they are read untyped. */
const loose = (value: unknown): any => value;

describe('mock-upstream over real HTTP', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await createMockUpstreamApp(silentLogger);
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(() => app.close());

  const alpha = (body: Record<string, unknown>, headers: Record<string, string> = auth) =>
    fetch(`${base}/alpha/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'alpha-chat', ...body }),
    });
  const beta = (body: Record<string, unknown>) =>
    fetch(`${base}/beta/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'beta-chat', max_tokens: 100, ...body }),
    });
  const user = (text: string) => [{ role: 'user', content: text }];

  async function sseData(response: Response): Promise<string[]> {
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
  }

  it('answers GET /health', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(await response.json().then(loose)).toEqual({ status: 'ok' });
  });

  describe('Mock Alpha (OpenAI wire)', () => {
    it('echoes the last user text with usage by the documented token rule', async () => {
      const response = await alpha({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'hello  there world' }] },
        ],
      });
      expect(response.status).toBe(200);
      const body = await response.json().then(loose);
      expect(body).toMatchObject({
        object: 'chat.completion',
        model: 'alpha-chat',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'hello there world' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 2 + 4 + 3 + 4, completion_tokens: 3, total_tokens: 16 },
      });
    });

    it('refuses a request without credentials', async () => {
      const response = await alpha({ messages: user('hi') }, { 'content-type': 'application/json' });
      expect(response.status).toBe(401);
      expect((await response.json().then(loose)).error.message).toBe('Missing API key');
    });

    it('truncates to max_tokens with finish length', async () => {
      const body = await (
        await alpha({ messages: user('one two three four'), max_tokens: 2 })
      )
        .json()
        .then(loose);
      expect(body.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'length' });
      expect(body.usage.completion_tokens).toBe(2);
    });

    it('calls the first tool when tool_choice is required', async () => {
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
      const body = await (
        await alpha({ messages: user('find cats'), tools, tool_choice: 'required' })
      )
        .json()
        .then(loose);
      expect(body.choices[0].finish_reason).toBe('tool_calls');
      expect(body.choices[0].message.content).toBeNull();
      expect(body.choices[0].message.tool_calls[0]).toMatchObject({
        type: 'function',
        function: { name: 'lookup', arguments: JSON.stringify({ text: 'find cats' }) },
      });
    });

    it('streams chunks, a usage chunk on include_usage, and [DONE]', async () => {
      const response = await alpha({
        messages: user('alpha beta gamma'),
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const data = await sseData(response);
      expect(data.at(-1)).toBe('[DONE]');
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
      expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
      expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('alpha beta gamma');
      expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
      expect(chunks.at(-1)).toMatchObject({
        choices: [],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      });
    });

    it.each([
      ['one string', 'three'],
      ['a list, the earliest match counting', ['four', ' three']],
    ])('cuts the answer before a stop sequence given as %s, with finish stop', async (_label, stop) => {
      const body = await (await alpha({ messages: user('one two three four'), stop })).json().then(loose);
      expect(body.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'stop' });
      expect(body.usage.completion_tokens).toBe(2);
    });

    it('streams only the words before a stop sequence', async () => {
      const data = await sseData(
        await alpha({ messages: user('one two three'), stop: ['two'], stream: true }),
      );
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
      expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('one');
      expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
    });

    it('streams without a usage chunk unless asked', async () => {
      const data = await sseData(await alpha({ messages: user('x y'), stream: true }));
      expect(data.slice(0, -1).some((d) => JSON.parse(d).usage)).toBe(false);
    });

    it.each([502, 429, 503])('answers [[fail:%i]] with that status', async (status) => {
      const response = await alpha({ messages: user(`hello [[fail:${status}]]`) });
      expect(response.status).toBe(status);
      expect((await response.json().then(loose)).error.message).toBe(`Injected failure ${status}`);
    });

    it('waits [[delay:N]] before the first byte and removes the marker', async () => {
      const started = Date.now();
      const body = await (await alpha({ messages: user('slow [[delay:300]] answer') })).json().then(loose);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(body.choices[0].message.content).toBe('slow answer');
    });

    it.each(['alpha', 'beta'] as const)(
      'paces the content chunks of a %s stream by [[slow:N]]',
      async (wire) => {
        const started = Date.now();
        const body = { messages: user('one two three [[slow:150]]'), stream: true };
        const data = await sseData(await (wire === 'alpha' ? alpha(body) : beta(body)));
        expect(Date.now() - started).toBeGreaterThanOrEqual(290);
        expect(data.join('\n')).toContain('three');
      },
    );

    it('blocks [[filter]] with content_filter and empty content', async () => {
      const body = await (await alpha({ messages: user('bad words [[filter]]') })).json().then(loose);
      expect(body.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
      expect(body.usage.completion_tokens).toBe(0);
    });

    it('cuts a stream after the first content chunk on [[drop]]', async () => {
      const response = await alpha({ messages: user('one two three [[drop]]'), stream: true });
      await expect(response.text()).rejects.toThrow();
    });

    it('destroys the socket of a plain call on [[drop]]', async () => {
      await expect(alpha({ messages: user('one [[drop]]') })).rejects.toThrow();
    });
  });

  describe('Mock Beta (Anthropic wire)', () => {
    it('answers a message with usage', async () => {
      const response = await beta({ system: 'be brief', messages: user('hi there') });
      expect(response.status).toBe(200);
      expect(await response.json().then(loose)).toMatchObject({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'hi there' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 2 + 4 + 2 + 4, output_tokens: 2 },
      });
    });

    it('truncates to max_tokens with stop_reason max_tokens', async () => {
      const body = await (await beta({ messages: user('a b c d'), max_tokens: 3 })).json().then(loose);
      expect(body).toMatchObject({ content: [{ text: 'a b c' }], stop_reason: 'max_tokens' });
    });

    it('cuts the answer before a stop sequence and names it with stop_reason stop_sequence', async () => {
      const body = await (
        await beta({ messages: user('one two END three'), stop_sequences: ['three', 'END'] })
      )
        .json()
        .then(loose);
      expect(body).toMatchObject({
        content: [{ type: 'text', text: 'one two' }],
        stop_reason: 'stop_sequence',
        stop_sequence: 'END',
        usage: { output_tokens: 2 },
      });
    });

    it('names the stop sequence in the message_delta of a stream', async () => {
      const data = (
        await sseData(
          await beta({ messages: user('one two three'), stop_sequences: ['three'], stream: true }),
        )
      ).map((d) => JSON.parse(d));
      expect(
        data
          .filter((d) => d.type === 'content_block_delta')
          .map((d) => d.delta.text)
          .join(''),
      ).toBe('one two');
      expect(data.find((d) => d.type === 'message_delta')).toMatchObject({
        delta: { stop_reason: 'stop_sequence', stop_sequence: 'three' },
        usage: { output_tokens: 2 },
      });
    });

    it('uses a tool when tool_choice is any', async () => {
      const body = await (
        await beta({
          messages: user('go'),
          tools: [{ name: 'run', input_schema: {} }],
          tool_choice: { type: 'any' },
        })
      )
        .json()
        .then(loose);
      expect(body).toMatchObject({
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', name: 'run', input: { text: 'go' } }],
      });
    });

    it('streams message events', async () => {
      const data = (await sseData(await beta({ messages: user('one two'), stream: true }))).map((d) =>
        JSON.parse(d),
      );
      expect(data.map((d) => d.type)).toEqual([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(
        data
          .filter((d) => d.type === 'content_block_delta')
          .map((d) => d.delta.text)
          .join(''),
      ).toBe('one two');
      expect(data[5]).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } });
    });

    it('answers [[fail:529]] in the Anthropic error shape', async () => {
      const response = await beta({ messages: user('[[fail:529]]') });
      expect(response.status).toBe(529);
      expect(await response.json().then(loose)).toEqual({
        type: 'error',
        error: { type: 'api_error', message: 'Injected failure 529' },
      });
    });
  });

  describe('[[stall:WHEN]]', () => {
    /** Reads the stream until `quietMs` pass without a byte; what came, and whether the mock had ended it. */
    async function readUntilQuiet(
      response: Response,
      quietMs: number,
    ): Promise<{ text: string; ended: boolean }> {
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const next = await Promise.race([
          reader.read(),
          new Promise<'quiet'>((resolve) => setTimeout(() => resolve('quiet'), quietMs)),
        ]);
        if (next === 'quiet') {
          await reader.cancel();
          return { text, ended: false };
        }
        if (next.done) return { text, ended: true };
        text += decoder.decode(next.value, { stream: true });
      }
    }

    it.each([
      ['alpha', 'first', ''],
      ['alpha', 'mid', 'one'],
      ['beta', 'first', ''],
      ['beta', 'mid', 'one'],
    ] as const)('holds a %s stream open and silent at %s', async (wire, when, relayed) => {
      const body = { messages: user(`one two three [[stall:${when}]]`), stream: true };
      const response = await (wire === 'alpha' ? alpha(body) : beta(body));
      expect(response.status).toBe(200);
      const { text, ended } = await readUntilQuiet(response, 400);
      expect(ended).toBe(false);
      expect(text).not.toContain('two');
      if (relayed) expect(text).toContain(relayed);
      else expect(text).not.toContain('one');
    });

    it('sends the headers of a plain call and then nothing', async () => {
      const response = await alpha({ messages: user('one [[stall:first]]') });
      expect(response.status).toBe(200);
      expect(await readUntilQuiet(response, 400)).toEqual({ text: '', ended: false });
    });
  });

  it('counts the calls of each route by the status it answered, and the cut ones as closed', async () => {
    const before = loose(await (await fetch(`${base}/calls`)).json());
    await alpha({ messages: user('hello') }).then((r) => r.text());
    await alpha({ messages: user('[[fail:429]] [[retry-after:2]]') }).then((r) => r.text());
    await alpha({ messages: user('[[fail:429]]') }).then((r) => r.text());
    await alpha({ messages: user('one [[drop]]') }).catch(() => undefined);
    const after = loose(await (await fetch(`${base}/calls`)).json());
    const route = 'POST /alpha/v1/chat/completions';
    const delta = (outcome: string) => (after[route]?.[outcome] ?? 0) - (before[route]?.[outcome] ?? 0);
    expect([delta('200'), delta('429')]).toEqual([1, 2]);
    // At least: a stalled call of a test before may still be closing.
    expect(delta('closed')).toBeGreaterThanOrEqual(1);
    expect(after['GET /calls']).toBeUndefined();
  });

  it('Mock Broken answers 502 to everything', async () => {
    const response = await fetch(`${base}/broken/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    expect(response.status).toBe(502);
  });

  describe('usage part markers', () => {
    const marked =
      'hi [[cache-read:400]] [[cache-write:200]] [[cache-write-1h:100]] [[audio-in:30]] [[image-in:20]] [[reasoning:50]] [[audio-out:10]] [[web-search:2]]';
    // The prompt's text is 9 words (the markers count, as all words of a message do) + 4 = 13 tokens; the answer is 1.
    const alphaUsage = {
      prompt_tokens: 13 + 400 + 200 + 100 + 30 + 20,
      completion_tokens: 1 + 50 + 10,
      total_tokens: 763 + 61,
      prompt_tokens_details: {
        cached_tokens: 400,
        cache_write_tokens: 300,
        audio_tokens: 30,
        image_tokens: 20,
      },
      completion_tokens_details: { reasoning_tokens: 50, audio_tokens: 10 },
      server_tool_use: { web_search_requests: 2 },
    };
    const betaInput = {
      input_tokens: 13 + 30 + 20,
      cache_read_input_tokens: 400,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 100 },
    };
    const betaOutput = { output_tokens: 61, server_tool_use: { web_search_requests: 2 } };

    it.each([false, true])(
      'are reported by Mock Alpha as OpenAI and OpenRouter do (stream: %s)',
      async (stream) => {
        const body = { messages: user(marked), stream, stream_options: { include_usage: true } };
        const usage = stream
          ? JSON.parse((await sseData(await alpha(body))).at(-2) as string).usage
          : loose(await (await alpha(body)).json()).usage;
        expect(usage).toEqual(alphaUsage);
      },
    );

    it('are reported by Mock Beta as Anthropic does, plain', async () => {
      const body = loose(await (await beta({ messages: user(marked) })).json());
      expect(body.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(body.usage).toEqual({ ...betaInput, ...betaOutput });
    });

    it('are reported by Mock Beta as Anthropic does, streamed: input at message_start, output and searches at message_delta', async () => {
      const data = (await sseData(await beta({ messages: user(marked), stream: true }))).map((d) =>
        JSON.parse(d),
      );
      expect(data[0].message.usage).toEqual({ ...betaInput, output_tokens: 0 });
      expect(data.find((d) => d.type === 'message_delta').usage).toEqual(betaOutput);
    });
  });
});
