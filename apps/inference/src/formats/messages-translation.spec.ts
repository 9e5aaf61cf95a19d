import type { MessagesResponse, NamedServerSentEvent } from '@gw/contracts';
import type { MessagesRequestDto } from '@gw/dto';
import {
  chunk,
  completion,
  GENERATION_ID,
  REDACTED_THINKING,
  THINKING,
  THINKING_DETAILS,
  THINKING_THEN_TOOL_CHUNKS,
  TEXT_CHUNKS,
  TEXT_THEN_TOOL_CHUNKS,
  TOOL_CHUNKS,
  USAGE_WITH_PARTS,
} from './format-fixtures';
import type { StreamInput } from './event-stream';
import {
  messageFromCompletion,
  messagesStreamTranslator,
  messagesToChatBody,
  messagesUsage,
  stopReason,
  toolInput,
} from './messages-translation';

const body = (fields: Partial<MessagesRequestDto> = {}): MessagesRequestDto => ({
  model: 'demo/chat',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
  ...fields,
});

describe('messagesToChatBody', () => {
  it.each<[string, Partial<MessagesRequestDto>, Record<string, unknown>]>([
    ['a string message and max_tokens', {}, { max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }],
    [
      'a string system prompt',
      { system: 'be brief' },
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      },
    ],
    [
      'system text blocks joined',
      {
        system: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        messages: [
          { role: 'system', content: 'one\n\ntwo' },
          { role: 'user', content: 'hi' },
        ],
      },
    ],
    [
      'text and images (base64 and url) as chat parts',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
              { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
            ],
          },
        ],
      },
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            ],
          },
        ],
      },
    ],
    [
      'tool_use as tool_calls and tool_result as tool messages before the rest of the turn',
      {
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'checking' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Moscow' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
              { type: 'text', text: 'and tomorrow?' },
            ],
          },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: 'checking',
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Moscow"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
          { role: 'user', content: [{ type: 'text', text: 'and tomorrow?' }] },
        ],
      },
    ],
    [
      'an errored tool result, and an assistant turn of only a call',
      {
        messages: [
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: 'boom', is_error: true }],
          },
        ],
      },
      {
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 't', content: 'Error: boom' },
        ],
      },
    ],
    [
      'tools with input_schema as function parameters',
      { tools: [{ name: 'f', description: 'd', input_schema: { type: 'object' } }] },
      {
        tools: [
          { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } },
        ],
      },
    ],
    ['tool_choice any as required', { tool_choice: { type: 'any' } }, { tool_choice: 'required' }],
    ['tool_choice auto', { tool_choice: { type: 'auto' } }, { tool_choice: 'auto' }],
    ['tool_choice none', { tool_choice: { type: 'none' } }, { tool_choice: 'none' }],
    [
      'tool_choice tool as a named function',
      { tool_choice: { type: 'tool', name: 'f' } },
      { tool_choice: { type: 'function', function: { name: 'f' } } },
    ],
    [
      'thinking enabled as reasoning with a budget',
      { thinking: { type: 'enabled', budget_tokens: 2048 } },
      { reasoning: { enabled: true, max_tokens: 2048 } },
    ],
    ['thinking disabled', { thinking: { type: 'disabled' } }, { reasoning: { enabled: false } }],
    [
      'sampling, metadata.user_id as user, provider routing',
      { temperature: 0.2, top_p: 0.8, metadata: { user_id: 'u-1' }, provider: { only: ['Mock Alpha'] } },
      { temperature: 0.2, top_p: 0.8, user: 'u-1', provider: { only: ['Mock Alpha'] } },
    ],
  ])('maps %s', (_name, fields, expected) => {
    expect(messagesToChatBody(body(fields), false)).toMatchObject({
      model: 'demo/chat',
      stream: false,
      ...expected,
    });
  });

  it('passes stop_sequences on as the chat stop, and top_k not at all', () => {
    const chat = messagesToChatBody(body({ top_k: 5, stop_sequences: ['END', '\n\nHuman:'] }), true);
    expect(Object.keys(chat).sort()).toEqual(['max_tokens', 'messages', 'model', 'stop', 'stream']);
    expect(chat.stop).toEqual(['END', '\n\nHuman:']);
  });

  // The validation should refuse all of these; the translator must still answer a 400, never a TypeError.
  it.each<[string, unknown, string]>([
    ['a message that is an array', [[]], 'messages[0]'],
    ['a message that is null', [null], 'messages[0]'],
    ['a message without content', [{ role: 'assistant' }], 'messages[0].content'],
    ['a message with an unknown role', [{ role: 'system', content: 'x' }], 'messages[0].role'],
    ['a block that is null', [{ role: 'user', content: [null] }], 'messages[0].content[0]'],
    [
      'a block without a type',
      [{ role: 'assistant', content: [{ text: 'x' }] }],
      'messages[0].content[0].type',
    ],
    [
      'a text block without text',
      [{ role: 'assistant', content: [{ type: 'text' }] }],
      'messages[0].content[0].text',
    ],
    [
      'an image without a source',
      [{ role: 'user', content: [{ type: 'image' }] }],
      'messages[0].content[0].source',
    ],
    [
      'an image source without data',
      [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }],
      'messages[0].content[0].source.data',
    ],
    [
      'a tool_use without input',
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f' }] }],
      'messages[0].content[0].input',
    ],
    [
      'a tool_result without its id',
      [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }],
      'messages[0].content[0].tool_use_id',
    ],
    [
      'a tool_result with a null part',
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [null] }] }],
      'messages[0].content[0].content[0]',
    ],
  ])('refuses %s with a 400 naming it', (_label, messages, param) => {
    expect(() =>
      messagesToChatBody(body({ messages: messages as MessagesRequestDto['messages'] }), false),
    ).toThrow(expect.objectContaining({ name: 'DomainError', code: 'invalid_request', param }));
  });

  it.each<[string, Partial<Record<keyof MessagesRequestDto, unknown>>, string]>([
    ['messages that are not a list', { messages: 'hi' }, 'messages'],
    ['system blocks that are not objects', { system: [null] }, 'system[0]'],
    ['a tool that is null', { tools: [null] }, 'tools[0]'],
    ['a tool without input_schema', { tools: [{ name: 'f' }] }, 'tools[0].input_schema'],
    ['a tool_choice of no known type', { tool_choice: { type: 'some' } }, 'tool_choice.type'],
    ['a named tool_choice without a name', { tool_choice: { type: 'tool' } }, 'tool_choice.name'],
    ['stop_sequences that are not strings', { stop_sequences: [1] }, 'stop_sequences[0]'],
  ])('refuses %s with a 400 naming it', (_label, fields, param) => {
    expect(() => messagesToChatBody(body(fields as Partial<MessagesRequestDto>), false)).toThrow(
      expect.objectContaining({ code: 'invalid_request', param }),
    );
  });
});

describe('thinking through the chat shape', () => {
  it("keeps an assistant turn's thinking and redacted thinking as reasoning items, signature and data unchanged", () => {
    const chat = messagesToChatBody(
      body({
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [THINKING, REDACTED_THINKING, { type: 'tool_use', id: 't', name: 'f', input: {} }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'sunny' }] },
        ],
      }),
      false,
    );
    expect(chat.messages?.[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
      reasoning: THINKING.thinking,
      reasoning_details: THINKING_DETAILS,
    });
  });

  it('answers reasoning items as the blocks they were, before the text and tool calls', () => {
    const message = messageFromCompletion(
      completion(
        {
          role: 'assistant',
          content: null,
          reasoning: THINKING.thinking,
          reasoning_details: THINKING_DETAILS,
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        'tool_calls',
      ),
    );
    expect(message.content).toEqual([
      THINKING,
      REDACTED_THINKING,
      { type: 'tool_use', id: 't', name: 'f', input: {} },
    ]);
  });

  it("shows another provider's summary as unsigned thinking and leaves its encrypted reasoning out", () => {
    const message = messageFromCompletion(
      completion({
        role: 'assistant',
        content: 'hi',
        reasoning_details: [
          { type: 'reasoning.summary', summary: 'Greeting.', format: 'openai-responses-v1', index: 0 },
          { type: 'reasoning.encrypted', data: 'gAAAAB...', format: 'openai-responses-v1', index: 1 },
        ],
      }),
    );
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Greeting.', signature: '' },
      { type: 'text', text: 'hi' },
    ]);
  });

  it('streams thinking as Anthropic does: thinking_delta, one signature_delta, redacted data whole, then the tool on the next index', () => {
    const events = run(chunks(THINKING_THEN_TOOL_CHUNKS));
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ type: 'message_start' }),
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Let me analyze ' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'this step by step...' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: THINKING.signature },
      },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: REDACTED_THINKING },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 2 },
      expect.objectContaining({
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
      }),
      { type: 'message_stop' },
    ]);
  });
});

describe('messageFromCompletion', () => {
  it.each<[string, Parameters<typeof completion>, Partial<MessagesResponse>]>([
    [
      'text',
      [{ role: 'assistant', content: 'hello' }],
      { content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' },
    ],
    [
      'tool calls as tool_use blocks with parsed input',
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        'tool_calls',
      ],
      { content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } }], stop_reason: 'tool_use' },
    ],
    [
      'length as max_tokens',
      [{ role: 'assistant', content: 'one' }, 'length'],
      { stop_reason: 'max_tokens' },
    ],
    [
      'a filtered answer as refusal with no content',
      [{ role: 'assistant', content: '' }, 'content_filter'],
      { content: [], stop_reason: 'refusal' },
    ],
  ])('maps %s', (_name, args, expected) => {
    expect(messageFromCompletion(completion(...args))).toMatchObject(expected);
  });

  it('carries the id, model, provider and usage with cost', () => {
    expect(messageFromCompletion(completion({ role: 'assistant', content: 'x' }))).toEqual({
      id: GENERATION_ID,
      type: 'message',
      role: 'assistant',
      model: 'demo/chat',
      content: [{ type: 'text', text: 'x' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 6,
        output_tokens: 2,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        server_tool_use: { web_search_requests: 0 },
        cost_rub: 0.0021,
        cost: 0.0021,
      },
      provider: 'Mock Alpha',
    });
  });

  it.each([
    ['{"a":1}', { a: 1 }],
    ['', {}],
    ['[1]', { _raw: '[1]' }],
    ['{broken', { _raw: '{broken' }],
  ])('reads tool arguments %p as an input object', (args, expected) => {
    expect(toolInput(args)).toEqual(expected);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
    ['something_else', 'end_turn'],
  ])('maps finish reason %s to stop_reason %s', (finish, stop) => {
    expect(stopReason(finish)).toBe(stop);
  });
});

function run(inputs: StreamInput[]): NamedServerSentEvent[] {
  const translator = messagesStreamTranslator();
  let state = translator.initial;
  const events: NamedServerSentEvent[] = [];
  for (const input of inputs) {
    const step = translator.step(state, input);
    state = step.state;
    events.push(...step.events);
  }
  return events;
}
/** The prompt's count while streaming (an estimate here), which the final usage then replaces. */
const PROMPT_TOKENS_SO_FAR = 5;
const chunks = (list: typeof TEXT_CHUNKS) =>
  list.map((c): StreamInput => ({ kind: 'chunk', chunk: c, promptTokens: PROMPT_TOKENS_SO_FAR }));

describe('messagesStreamTranslator', () => {
  it.each<[string, typeof TEXT_CHUNKS, string[]]>([
    [
      'text',
      TEXT_CHUNKS,
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    ],
    [
      'a tool call',
      TOOL_CHUNKS,
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    ],
    [
      'text, then a tool call',
      TEXT_THEN_TOOL_CHUNKS,
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    ],
    [
      'an empty filtered answer',
      [chunk({ role: 'assistant', content: '' }, 'content_filter')],
      ['message_start', 'message_delta', 'message_stop'],
    ],
  ])('emits the native events for %s, each naming its type', (_name, list, names) => {
    const events = run(chunks(list));
    expect(events.map((e) => e.event)).toEqual(names);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
  });

  it('starts the message with the prompt tokens known so far, streams text deltas and ends with stop_reason and the final usage with cost', () => {
    const events = run(chunks(TEXT_CHUNKS));
    expect(events[0].data.message).toMatchObject({
      id: GENERATION_ID,
      type: 'message',
      role: 'assistant',
      model: 'demo/chat',
      content: [],
      stop_reason: null,
      usage: { input_tokens: PROMPT_TOKENS_SO_FAR, output_tokens: 0 },
    });
    expect(events[1].data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    expect(events[2].data).toEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'hello' },
    });
    expect(events[5].data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        input_tokens: 6,
        output_tokens: 2,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        server_tool_use: { web_search_requests: 0 },
        cost_rub: 0.0021,
        cost: 0.0021,
      },
    });
  });

  it('streams tool input as input_json_delta on its own block', () => {
    const events = run(chunks(TEXT_THEN_TOOL_CHUNKS));
    expect(events[4].data).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'call_2', name: 'lookup', input: {} },
    });
    expect(events[5].data).toEqual({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{}' },
    });
    expect(events[7].data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it.each([
    ['upstream_error', 'api_error'],
    ['insufficient_balance', 'billing_error'],
    ['upstream_timeout', 'api_error'],
    ['rate_limited', 'rate_limit_error'],
  ] as const)('turns %s after the start into an error event of type %s', (code, type) => {
    const events = run([
      ...chunks(TEXT_CHUNKS.slice(0, 1)),
      { kind: 'error', error: { code, message: 'broke off', param: null } },
      ...chunks(TEXT_CHUNKS.slice(1)),
    ]);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'error',
    ]);
    expect(events.at(-1)?.data).toEqual({ type: 'error', error: { type, message: 'broke off' } });
  });
});

describe('messagesUsage', () => {
  it('reports the cache as Anthropic does: input_tokens without the tokens read from or written to it', () => {
    expect(messagesUsage(USAGE_WITH_PARTS)).toEqual({
      // 1000 - 400 read - 300 written
      input_tokens: 300,
      output_tokens: 500,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 400,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 100 },
      server_tool_use: { web_search_requests: 2 },
      cost_rub: 0.0021,
      cost: 0.0021,
    });
  });
});
