import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toAnthropicRequest } from './anthropic-request';
import { AnthropicWireAdapter } from './anthropic-wire.adapter';
import { OpenAiWireAdapter, toOpenAiRequest } from './openai-wire.adapter';
import { UpstreamAbort } from './upstream-abort';
import type { ChatAdapter, UpstreamChatRequest, UpstreamStreamEvent } from './upstream-chat';
import { UpstreamHttp } from './upstream-http';

/**
 * Reasoning on both wires: Anthropic's thinking blocks as its extended-thinking documentation shows
 * them (a signed thinking block, a redacted one, the stream's thinking_delta and signature_delta),
 * OpenRouter's reasoning and reasoning_details, read into the chat's reasoning items and sent back
 * in each wire's own form.
 */
const SIGNATURE = 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....';
const REDACTED =
  'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj6M6zOmOw==';
const format = 'anthropic-claude-v1';

const request = (fields: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({
  model: 'claude',
  messages: [{ role: 'user', content: 'weather?' }],
  max_tokens: 4096,
  ...fields,
});

/** A conversation continued after a tool call, whose assistant turn carries its thinking. */
const CONTINUATION: UpstreamChatRequest['messages'] = [
  { role: 'user', content: 'weather?' },
  {
    role: 'assistant',
    content: null,
    reasoning: 'Let me analyze this step by step...',
    reasoning_details: [
      {
        type: 'reasoning.text',
        text: 'Let me analyze this step by step...',
        signature: SIGNATURE,
        format,
        index: 0,
      },
      { type: 'reasoning.encrypted', data: REDACTED, format, index: 1 },
      { type: 'reasoning.summary', summary: 'Weather lookup.', format: 'openai-responses-v1', index: 2 },
      { type: 'reasoning.encrypted', data: 'gAAAAB...', format: 'openai-responses-v1', index: 3 },
      { type: 'reasoning.text', text: 'unsigned', index: 4 },
    ],
    tool_calls: [
      { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
];

describe('toAnthropicRequest with thinking', () => {
  it("sends an assistant turn's signed and redacted thinking first, as the blocks Anthropic returned, and nothing it cannot verify", () => {
    const body = toAnthropicRequest(request({ messages: CONTINUATION }));
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Let me analyze this step by step...', signature: SIGNATURE },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ]);
  });

  it.each<[string, UpstreamChatRequest['reasoning'], number, Record<string, unknown> | undefined]>([
    [
      'a budget as given',
      { enabled: true, max_tokens: 2048 },
      4096,
      { type: 'enabled', budget_tokens: 2048 },
    ],
    ['enabled alone at the least budget', { enabled: true }, 4096, { type: 'enabled', budget_tokens: 1024 }],
    [
      "an effort as OpenRouter's share of max_tokens",
      { effort: 'high' },
      4096,
      { type: 'enabled', budget_tokens: 3276 },
    ],
    [
      'a low effort at no less than the least budget',
      { effort: 'low' },
      4096,
      { type: 'enabled', budget_tokens: 1024 },
    ],
    [
      'no thinking for an effort whose budget would not fit below max_tokens',
      { effort: 'low' },
      1024,
      undefined,
    ],
    ['disabled when turned off', { enabled: false }, 4096, { type: 'disabled' }],
    ['disabled for the effort none', { effort: 'none' }, 4096, { type: 'disabled' }],
  ])('sets thinking: %s', (_label, reasoning, maxTokens, thinking) => {
    expect(toAnthropicRequest(request({ reasoning, max_tokens: maxTokens })).thinking).toEqual(thinking);
  });
});

describe('toOpenAiRequest with reasoning', () => {
  it("sends the effort alone, and an assistant's reasoning only as the reasoning_details OpenRouter takes back", () => {
    const body = toOpenAiRequest(
      request({ messages: CONTINUATION, reasoning_effort: 'high', reasoning: { effort: 'high' } }),
    );
    expect(body).not.toHaveProperty('reasoning');
    expect(body.reasoning_effort).toBe('high');
    expect(body.messages[1]).not.toHaveProperty('reasoning');
    expect(body.messages[1].reasoning_details).toEqual(CONTINUATION[1].reasoning_details);
    expect(body.messages[0]).toBe(CONTINUATION[0]);
  });
});

/** A provider that answers every request with one fixed stream. */
class FixedStream {
  private readonly server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(this.body);
    });
  });
  body = '';

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<unknown> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }
}

const named = (event: string, data: Record<string, unknown>) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

/** Anthropic's documented stream of an answer that thinks, has redacted thinking and calls a tool. */
const ANTHROPIC_THINKING_STREAM = [
  named('message_start', { message: { usage: { input_tokens: 12, output_tokens: 1 } } }),
  named('content_block_start', {
    index: 0,
    content_block: { type: 'thinking', thinking: '', signature: '' },
  }),
  named('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Let me analyze ' } }),
  named('content_block_delta', {
    index: 0,
    delta: { type: 'thinking_delta', thinking: 'this step by step...' },
  }),
  named('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }),
  named('content_block_stop', { index: 0 }),
  named('content_block_start', { index: 1, content_block: { type: 'redacted_thinking', data: REDACTED } }),
  named('content_block_stop', { index: 1 }),
  named('content_block_start', {
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
  }),
  named('content_block_delta', {
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' },
  }),
  named('content_block_stop', { index: 2 }),
  named('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 90 } }),
  named('message_stop', {}),
].join('');

const data = (chunk: Record<string, unknown>) => `data: ${JSON.stringify(chunk)}\n\n`;

/** OpenRouter's stream of the same answer from Claude: reasoning text and its items, then the signature. */
const OPENROUTER_REASONING_STREAM = [
  data({
    choices: [
      {
        delta: {
          role: 'assistant',
          reasoning: 'Let me analyze',
          reasoning_details: [{ type: 'reasoning.text', text: 'Let me analyze', format, index: 0 }],
        },
      },
    ],
  }),
  data({
    choices: [
      {
        delta: {
          reasoning_details: [
            { type: 'reasoning.text', signature: SIGNATURE, format, index: 0, extra: 'dropped' },
            { type: 'reasoning.unknown', text: 'dropped' },
            { type: 'reasoning.encrypted', data: REDACTED, format, index: 1 },
          ],
        },
      },
    ],
  }),
  data({ choices: [{ delta: { reasoning_content: 'DeepSeek-style text' } }] }),
  data({
    choices: [{ delta: {}, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 7 } },
  }),
  'data: [DONE]\n\n',
].join('');

describe.each<[string, (http: UpstreamHttp) => ChatAdapter, string, string, UpstreamStreamEvent[]]>([
  [
    'anthropic',
    (http) => new AnthropicWireAdapter(http),
    '',
    ANTHROPIC_THINKING_STREAM,
    [
      { promptTokens: 12 },
      {
        reasoning: 'Let me analyze ',
        reasoningDetails: [{ type: 'reasoning.text', text: 'Let me analyze ', format, index: 0 }],
      },
      {
        reasoning: 'this step by step...',
        reasoningDetails: [{ type: 'reasoning.text', text: 'this step by step...', format, index: 0 }],
      },
      { reasoningDetails: [{ type: 'reasoning.text', signature: SIGNATURE, format, index: 0 }] },
      { reasoningDetails: [{ type: 'reasoning.encrypted', data: REDACTED, format, index: 1 }] },
      {
        toolCalls: [
          { index: 0, id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      },
      { toolCalls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] },
      { finishReason: 'tool_calls', usage: { prompt_tokens: 12, completion_tokens: 90 } },
    ],
  ],
  [
    'openai',
    (http) => new OpenAiWireAdapter(http),
    '/v1',
    OPENROUTER_REASONING_STREAM,
    [
      {
        reasoning: 'Let me analyze',
        reasoningDetails: [{ type: 'reasoning.text', text: 'Let me analyze', format, index: 0 }],
      },
      {
        reasoningDetails: [
          { type: 'reasoning.text', signature: SIGNATURE, format, index: 0 },
          { type: 'reasoning.encrypted', data: REDACTED, format, index: 1 },
        ],
      },
      { reasoning: 'DeepSeek-style text' },
      { finishReason: 'stop', usage: { prompt_tokens: 5, completion_tokens: 9, reasoning_tokens: 7 } },
    ],
  ],
])('the %s wire reads reasoning', (_wire, adapterOf, path, stream, expected) => {
  const provider = new FixedStream();
  const http = new UpstreamHttp(5_000, 16);
  let url = '';

  beforeAll(async () => {
    url = await provider.start();
  });
  afterAll(async () => {
    await http.onApplicationShutdown();
    await provider.stop();
  });

  it('as reasoning text and the pieces of its items, in order, with signatures and data', async () => {
    provider.body = stream;
    const events: UpstreamStreamEvent[] = [];
    const call = { baseUrl: `${url}${path}`, apiKey: 'key', request: request(), signal: new UpstreamAbort() };
    for await (const batch of adapterOf(http).stream(call)) events.push(...batch);
    expect(events.filter((event) => Object.keys(event).length > 0)).toEqual(expected);
  });
});
