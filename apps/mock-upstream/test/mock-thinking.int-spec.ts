import Anthropic from '@anthropic-ai/sdk';
import { type INestApplication } from '@nestjs/common';
import { silentLogger } from '@gw/testing';
import { createMockUpstreamApp } from '../src/mock-upstream.module';

/** Test bodies are asserted field by field, so they are read untyped. */
const loose = (value: unknown): any => value;

const TOOLS = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }];
const THINKING = { type: 'enabled' as const, budget_tokens: 1024 };
/** "The answer is 2 words: weather Paris": 7 words of thinking. */
const THINKING_TEXT = 'The answer is 2 words: weather Paris';

describe('mock-upstream thinking over real HTTP', () => {
  let app: INestApplication;
  let base: string;
  let anthropic: Anthropic;

  beforeAll(async () => {
    app = await createMockUpstreamApp(silentLogger);
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    anthropic = new Anthropic({ apiKey: 'test-key', baseURL: `${base}/beta`, maxRetries: 0 });
  });

  afterAll(() => app.close());

  const first = (text = 'weather Paris [[use-tool]]') =>
    anthropic.messages.create({
      model: 'beta-chat',
      max_tokens: 2048,
      thinking: THINKING,
      tools: TOOLS,
      messages: [{ role: 'user', content: text }],
    });

  /** The second turn: the first turn's assistant content (as given), then the tool's result and a question. */
  const second = (assistant: unknown[]) =>
    anthropic.messages
      .create({
        model: 'beta-chat',
        max_tokens: 2048,
        thinking: THINKING,
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'weather Paris [[use-tool]]' },
          { role: 'assistant', content: loose(assistant) },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
              { type: 'text', text: 'so what' },
            ],
          },
        ],
      })
      .catch((err: { status: number; error: unknown }) => err);

  describe('Mock Beta (Anthropic wire)', () => {
    it('answers signed thinking before the tool call it chose under tool_choice auto, counted as output', async () => {
      const message = await first();
      expect(message.content).toEqual([
        { type: 'thinking', thinking: THINKING_TEXT, signature: expect.any(String) },
        expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { text: 'weather Paris' } }),
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage.output_tokens).toBe(2 + 7);
    });

    it('streams the same thinking as thinking_delta then signature_delta, which the SDK puts together', async () => {
      const plain = await first();
      const stream = anthropic.messages.stream({
        model: 'beta-chat',
        max_tokens: 2048,
        thinking: THINKING,
        tools: TOOLS,
        messages: [{ role: 'user', content: 'weather Paris [[use-tool]]' }],
      });
      const deltas: string[] = [];
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta') deltas.push(event.delta.type);
      });
      const streamed = await stream.finalMessage();
      expect(streamed.content[0]).toEqual(plain.content[0]);
      expect(deltas).toEqual([...Array(7).fill('thinking_delta'), 'signature_delta', 'input_json_delta']);
    });

    it('continues a tool call whose turn begins with its thinking, unchanged', async () => {
      const message = await first();
      const answer = loose(await second(message.content));
      expect(answer.content).toEqual([
        expect.objectContaining({ type: 'thinking' }),
        { type: 'text', text: 'so what' },
      ]);
    });

    it("refuses, in Anthropic's words, a continuation whose tool_use turn lacks its thinking", async () => {
      const message = await first();
      const refused = loose(await second(message.content.slice(1)));
      expect(refused.status).toBe(400);
      expect(refused.error.error).toEqual({
        type: 'invalid_request_error',
        message: expect.stringMatching(
          /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled/,
        ),
      });
    });

    it('refuses thinking whose text was changed, as its signature no longer verifies it', async () => {
      const [thinking, call] = loose((await first()).content);
      const refused = loose(await second([{ ...thinking, thinking: `${thinking.thinking}!` }, call]));
      expect(refused.status).toBe(400);
      expect(refused.error.error.message).toBe(
        'messages.1.content.0: Invalid `signature` in `thinking` block',
      );
    });

    it('answers redacted thinking when asked, and takes it back', async () => {
      const message = await first('weather Paris [[use-tool]] [[redacted-thinking]]');
      expect(message.content[0]).toEqual({ type: 'redacted_thinking', data: expect.any(String) });
      expect(loose(await second(message.content)).content).toHaveLength(2);
    });

    it('answers no thinking, and asks none back, without thinking enabled', async () => {
      const message = await anthropic.messages.create({
        model: 'beta-chat',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'plain' }],
      });
      expect(message.content).toEqual([{ type: 'text', text: 'plain' }]);
    });
  });

  describe('Mock Alpha (OpenRouter serving Claude)', () => {
    const alpha = (body: Record<string, unknown>) =>
      fetch(`${base}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'alpha-chat',
          reasoning_effort: 'low',
          tools: [{ type: 'function', function: { name: 'get_weather' } }],
          ...body,
        }),
      });
    const user = { role: 'user', content: 'weather Paris [[use-tool]]' };

    it('answers reasoning and its signed item, with the reasoning tokens in completion_tokens_details', async () => {
      const body = loose(await (await alpha({ messages: [user] })).json());
      expect(body.choices[0].message).toMatchObject({
        reasoning: THINKING_TEXT,
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: THINKING_TEXT,
            signature: expect.any(String),
            format: 'anthropic-claude-v1',
            index: 0,
          },
        ],
        tool_calls: [expect.objectContaining({ type: 'function' })],
      });
      expect(body.usage).toMatchObject({
        completion_tokens: 9,
        completion_tokens_details: { reasoning_tokens: 7 },
      });
    });

    it('streams the reasoning in pieces of one item, the signature last', async () => {
      const response = await alpha({ messages: [user], stream: true });
      const deltas = (await response.text())
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta)
        .filter((delta) => delta?.reasoning_details);
      expect(deltas.map((delta) => delta.reasoning ?? '').join('')).toBe(THINKING_TEXT);
      expect(deltas.at(-1).reasoning_details).toEqual([
        { type: 'reasoning.text', signature: expect.any(String), format: 'anthropic-claude-v1', index: 0 },
      ]);
    });

    it('continues after the tool result with the reasoning_details sent back, and refuses it without them', async () => {
      const { message } = loose(await (await alpha({ messages: [user] })).json()).choices[0];
      const tool = { role: 'tool', tool_call_id: message.tool_calls[0].id, content: 'sunny' };
      const continued = await alpha({
        messages: [user, message, tool, { role: 'user', content: 'so what' }],
      });
      expect(continued.status).toBe(200);
      const { reasoning_details: _details, reasoning: _text, ...bare } = message;
      const refused = await alpha({ messages: [user, bare, tool] });
      expect(refused.status).toBe(400);
      expect(loose(await refused.json()).error.message).toMatch(
        /^messages\.1\.content\.0\.type: Expected `thinking`/,
      );
    });
  });
});
