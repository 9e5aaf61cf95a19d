import type { NamedServerSentEvent, ResponsesResponse } from '@gw/contracts';
import type { ResponsesRequestDto } from '@gw/dto';
import {
  completion,
  GENERATION_ID,
  TEXT_CHUNKS,
  TEXT_THEN_TOOL_CHUNKS,
  TOOL_CHUNKS,
  chunk,
  REDACTED_THINKING,
  THINKING,
  THINKING_DETAILS,
  THINKING_THEN_TOOL_CHUNKS,
  USAGE_WITH_PARTS,
} from './format-fixtures';
import type { StreamInput } from './event-stream';
import {
  functionCallItemId,
  messageItemId,
  responseFromCompletion,
  responsesParam,
  responsesStreamTranslator,
  responsesToChatBody,
  responsesUsage,
} from './responses-translation';

const body = (fields: Partial<ResponsesRequestDto> = {}): ResponsesRequestDto => ({
  model: 'demo/chat',
  input: 'hi',
  ...fields,
});

describe('responsesToChatBody', () => {
  it.each<[string, Partial<ResponsesRequestDto>, Record<string, unknown>]>([
    [
      'a string input as one user message',
      { input: 'hello' },
      { messages: [{ role: 'user', content: 'hello' }] },
    ],
    [
      'instructions as a leading system message',
      { instructions: 'be brief', input: 'hello' },
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello' },
        ],
      },
    ],
    [
      'user parts: input_text and input_image',
      {
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'look' },
              { type: 'input_image', image_url: 'https://x/y.png' },
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
              { type: 'image_url', image_url: { url: 'https://x/y.png' } },
            ],
          },
        ],
      },
    ],
    [
      'assistant and developer parts joined to text',
      {
        input: [
          { role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
        ],
      },
      {
        messages: [
          { role: 'developer', content: 'rules' },
          { role: 'assistant', content: 'ok' },
        ],
      },
    ],
    [
      'function calls join the assistant turn; outputs become tool messages',
      {
        input: [
          { role: 'user', content: 'weather?' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Moscow"}' },
          { type: 'function_call', call_id: 'call_2', name: 'get_time', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Moscow"}' },
              },
              { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      },
    ],
    ['max_output_tokens as max_tokens', { max_output_tokens: 5 }, { max_tokens: 5 }],
    [
      'function tools and a named tool_choice',
      {
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
        tool_choice: { type: 'function', name: 'f' },
      },
      {
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
      },
    ],
    ['a string tool_choice as is', { tool_choice: 'required' }, { tool_choice: 'required' }],
    [
      'text.format json_object',
      { text: { format: { type: 'json_object' } } },
      { response_format: { type: 'json_object' } },
    ],
    [
      'text.format json_schema wrapped as chat json_schema',
      { text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } } },
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
        },
      },
    ],
    ['reasoning.effort', { reasoning: { effort: 'low', summary: 'auto' } }, { reasoning: { effort: 'low' } }],
    [
      'sampling, user and provider routing',
      { temperature: 0.5, top_p: 0.9, user: 'u-1', provider: { only: ['Mock Beta'] } },
      { temperature: 0.5, top_p: 0.9, user: 'u-1', provider: { only: ['Mock Beta'] } },
    ],
  ])('maps %s', (_name, fields, expected) => {
    expect(responsesToChatBody(body(fields), false)).toMatchObject({
      model: 'demo/chat',
      stream: false,
      ...expected,
    });
  });

  it('does not pass on what the chat body has no place for', () => {
    const chat = responsesToChatBody(
      body({ metadata: { a: 'b' }, store: true, parallel_tool_calls: false }),
      true,
    );
    expect(Object.keys(chat).sort()).toEqual(['messages', 'model', 'stream']);
  });

  // The validation should refuse all of these; the translator must still answer a 400, never a TypeError.
  it.each<[string, Partial<Record<keyof ResponsesRequestDto, unknown>>, string]>([
    ['an input that is neither text nor a list', { input: { role: 'user' } }, 'input'],
    ['an input item that is null', { input: [null] }, 'input[0]'],
    ['an input item that is a list', { input: [[]] }, 'input[0]'],
    ['a message without a role', { input: [{ content: 'x' }] }, 'input[0].role'],
    ['a message without content', { input: [{ role: 'user' }] }, 'input[0].content'],
    ['a part that is null', { input: [{ role: 'user', content: [null] }] }, 'input[0].content[0]'],
    [
      'a text part without text',
      { input: [{ role: 'assistant', content: [{ type: 'output_text' }] }] },
      'input[0].content[0].text',
    ],
    [
      'an image part without its URL',
      { input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
      'input[0].content[0].image_url',
    ],
    [
      'a function_call without arguments',
      { input: [{ type: 'function_call', call_id: 'c', name: 'f' }] },
      'input[0].arguments',
    ],
    [
      'a function_call_output without output',
      { input: [{ type: 'function_call_output', call_id: 'c' }] },
      'input[0].output',
    ],
    ['an item of an unknown type', { input: [{ type: 'file_search_call' }] }, 'input[0].type'],
    ['instructions that are not text', { instructions: ['be brief'] }, 'instructions'],
    ['a tool that is null', { tools: [null] }, 'tools[0]'],
    ['a tool_choice object without a name', { tool_choice: { type: 'function' } }, 'tool_choice.name'],
    ['a text.format without a type', { text: { format: {} } }, 'text.format.type'],
    [
      'a json_schema format without a schema',
      { text: { format: { type: 'json_schema', name: 'a' } } },
      'text.format.schema',
    ],
  ])('refuses %s with a 400 naming it', (_label, fields, param) => {
    expect(() => responsesToChatBody(body(fields as Partial<ResponsesRequestDto>), false)).toThrow(
      expect.objectContaining({ name: 'DomainError', code: 'invalid_request', param }),
    );
  });

  it('takes a null tool_choice as not given', () => {
    expect(
      responsesToChatBody(body({ tool_choice: null } as unknown as Partial<ResponsesRequestDto>), false),
    ).not.toHaveProperty('tool_choice');
  });
});

describe('responsesParam', () => {
  it.each<[string | null, string | null]>([
    ['messages', 'input'],
    ['max_tokens', 'max_output_tokens'],
    ['model', 'model'],
    ['provider', 'provider'],
    ['constructor', 'constructor'],
    [null, null],
  ])('names %s as %s', (chat, responses) => {
    expect(responsesParam(chat)).toBe(responses);
  });
});

describe('responseFromCompletion', () => {
  it.each<[string, Parameters<typeof completion>, Partial<ResponsesResponse>]>([
    [
      'text as one message item',
      [{ role: 'assistant', content: 'hello' }],
      {
        status: 'completed',
        incomplete_details: null,
        output: [
          {
            type: 'message',
            id: messageItemId(GENERATION_ID),
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'hello', annotations: [] }],
          },
        ],
      },
    ],
    [
      'tool calls as function_call items, without an empty message',
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        'tool_calls',
      ],
      {
        status: 'completed',
        output: [
          {
            type: 'function_call',
            id: functionCallItemId('call_1'),
            call_id: 'call_1',
            name: 'f',
            arguments: '{"a":1}',
            status: 'completed',
          },
        ],
      },
    ],
    [
      'length as incomplete with max_output_tokens',
      [{ role: 'assistant', content: 'one two' }, 'length'],
      { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    ],
    [
      'content_filter as incomplete with an empty message',
      [{ role: 'assistant', content: '' }, 'content_filter'],
      {
        status: 'incomplete',
        incomplete_details: { reason: 'content_filter' },
        output: [expect.objectContaining({ type: 'message', status: 'incomplete' })],
      },
    ],
  ])('maps %s', (_name, args, expected) => {
    expect(responseFromCompletion(completion(...args), body())).toMatchObject(expected);
  });

  it('carries ids, model, provider, usage with cost and the echoed settings', () => {
    const response = responseFromCompletion(
      completion({ role: 'assistant', content: 'x' }),
      body({ instructions: 'sys', metadata: { t: '1' }, temperature: 0.3 }),
    );
    expect(response).toMatchObject({
      id: GENERATION_ID,
      object: 'response',
      created_at: 1767225600,
      model: 'demo/chat',
      provider: 'Mock Alpha',
      instructions: 'sys',
      metadata: { t: '1' },
      temperature: 0.3,
      text: { format: { type: 'text' } },
      usage: { input_tokens: 6, output_tokens: 2, total_tokens: 8, cost_rub: 0.0021, cost: 0.0021 },
    });
    expect(messageItemId(GENERATION_ID)).toBe('msg_6f1c2b1e8a634bb89d571f0b8e3c2a10');
  });

  it.each([
    ['the body', body({ reasoning: { effort: 'low' } }), 'low'],
    ["the model's alias", body({ model: 'demo/chat@reasoning_effort=high' }), 'high'],
    ['neither', body(), null],
  ])('echoes the reasoning effort asked for in %s', (_where, request, effort) => {
    const response = responseFromCompletion(completion({ role: 'assistant', content: 'x' }), request);
    expect(response.reasoning).toEqual({ effort, summary: null });
  });
});

function run(inputs: StreamInput[], request = body()): NamedServerSentEvent[] {
  const translator = responsesStreamTranslator(request);
  let state = translator.initial;
  const events: NamedServerSentEvent[] = [];
  for (const input of inputs) {
    const step = translator.step(state, input);
    state = step.state;
    events.push(...step.events);
  }
  return events;
}
const chunks = (list: typeof TEXT_CHUNKS) =>
  list.map((c): StreamInput => ({ kind: 'chunk', chunk: c, promptTokens: 5 }));

describe('responsesStreamTranslator', () => {
  it.each<[string, typeof TEXT_CHUNKS, string[]]>([
    [
      'text',
      TEXT_CHUNKS,
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    ],
    [
      'a tool call',
      TOOL_CHUNKS,
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ],
    ],
    [
      'text, then a tool call',
      TEXT_THEN_TOOL_CHUNKS,
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ],
    ],
    [
      'an empty answer cut by the filter',
      [chunk({ role: 'assistant', content: '' }, 'content_filter')],
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.incomplete',
      ],
    ],
  ])('emits the native events for %s, numbered in order, each naming its type', (_name, list, names) => {
    const events = run(chunks(list));
    expect(events.map((e) => e.event)).toEqual(names);
    expect(events.map((e) => e.data.sequence_number)).toEqual(names.map((_n, i) => i));
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
  });

  it('ends with the full response: output text, usage with cost, status', () => {
    const events = run(chunks(TEXT_CHUNKS), body({ metadata: { t: '1' } }));
    const done = events.find((e) => e.event === 'response.output_text.done');
    expect(done?.data).toMatchObject({
      text: 'hello there',
      item_id: messageItemId(GENERATION_ID),
      output_index: 0,
      content_index: 0,
    });
    expect(events.at(-1)?.data.response).toMatchObject({
      id: GENERATION_ID,
      status: 'completed',
      metadata: { t: '1' },
      output: [
        {
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', text: 'hello there', annotations: [] }],
        },
      ],
      usage: { input_tokens: 6, output_tokens: 2, total_tokens: 8, cost_rub: 0.0021 },
    });
    expect(events[0].data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
  });

  it('accumulates function call arguments', () => {
    const events = run(chunks(TOOL_CHUNKS));
    expect(events.find((e) => e.event === 'response.output_item.added')?.data.item).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '',
      status: 'in_progress',
    });
    expect(events.find((e) => e.event === 'response.function_call_arguments.done')?.data).toMatchObject({
      arguments: '{"city":"Moscow"}',
      name: 'get_weather',
    });
    expect(events.at(-1)?.data.response).toMatchObject({
      output: [{ type: 'function_call', arguments: '{"city":"Moscow"}', status: 'completed' }],
    });
  });

  it('turns a failure after the start into an error event and ignores anything after it', () => {
    const events = run([
      ...chunks(TEXT_CHUNKS.slice(0, 1)),
      { kind: 'error', error: { code: 'upstream_error', message: 'broke off', param: null } },
      ...chunks(TEXT_CHUNKS.slice(1)),
    ]);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ]);
    expect(events.at(-1)?.data).toEqual({
      type: 'error',
      code: 'upstream_error',
      message: 'broke off',
      param: null,
      sequence_number: 5,
    });
  });

  it('reports started only once something was emitted', () => {
    const translator = responsesStreamTranslator(body());
    expect(translator.started(translator.initial)).toBe(false);
    expect(
      translator.started(
        translator.step(translator.initial, { kind: 'chunk', chunk: TEXT_CHUNKS[0], promptTokens: 5 }).state,
      ),
    ).toBe(true);
  });
});

describe('reasoning items', () => {
  const rs = (n: number) => `rs_${GENERATION_ID.replace(/^gen-/, '').replace(/-/g, '')}_${n}`;
  /** The Anthropic thinking of THINKING_DETAILS as the gateway's reasoning items. */
  const ITEMS = [
    {
      type: 'reasoning',
      id: rs(0),
      summary: [],
      content: [{ type: 'reasoning_text', text: THINKING.thinking }],
      signature: THINKING.signature,
      format: 'anthropic-claude-v1',
      status: 'completed',
    },
    {
      type: 'reasoning',
      id: rs(1),
      summary: [],
      encrypted_content: REDACTED_THINKING.data,
      format: 'anthropic-claude-v1',
      status: 'completed',
    },
  ];

  it('returns each reasoning item of the answer before the function call, signature and encrypted content kept', () => {
    const response = responseFromCompletion(
      completion(
        {
          role: 'assistant',
          content: null,
          reasoning_details: THINKING_DETAILS,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
        },
        'tool_calls',
      ),
      body(),
    );
    expect(response.output).toEqual([
      ...ITEMS,
      expect.objectContaining({ type: 'function_call', call_id: 'toolu_1' }),
    ]);
  });

  it('takes the items back as the reasoning of the assistant turn they open, which the calls then join', () => {
    const chat = responsesToChatBody(
      body({
        input: [
          { role: 'user', content: 'weather?' },
          ...(ITEMS as never[]),
          { type: 'function_call', call_id: 'toolu_1', name: 'lookup', arguments: '{}' },
          { type: 'function_call_output', call_id: 'toolu_1', output: 'sunny' },
        ],
      }),
      false,
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        reasoning: THINKING.thinking,
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: THINKING.thinking,
            signature: THINKING.signature,
            id: rs(0),
            format: 'anthropic-claude-v1',
          },
          {
            type: 'reasoning.encrypted',
            data: REDACTED_THINKING.data,
            id: rs(1),
            format: 'anthropic-claude-v1',
          },
        ],
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
    ]);
  });

  it("reads OpenAI's own item, without format, as its summary and its encrypted reasoning", () => {
    const chat = responsesToChatBody(
      body({
        input: [
          {
            type: 'reasoning',
            id: 'rs_abc',
            summary: [{ type: 'summary_text', text: '**Greeting**' }],
            encrypted_content: 'gAAAAABpF...zbM_w==',
          },
          { role: 'assistant', content: 'hello' },
        ],
      }),
      false,
    );
    expect(chat.messages).toEqual([
      {
        role: 'assistant',
        content: 'hello',
        reasoning: '**Greeting**',
        reasoning_details: [
          { type: 'reasoning.summary', summary: '**Greeting**', id: 'rs_abc' },
          {
            type: 'reasoning.encrypted',
            data: 'gAAAAABpF...zbM_w==',
            id: 'rs_abc',
            format: 'openai-responses-v1',
          },
        ],
      },
    ]);
  });

  it('refuses a reasoning item whose summary is not a list of summary_text parts', () => {
    expect(() =>
      responsesToChatBody(body({ input: [{ type: 'reasoning', summary: 'x' } as never] }), false),
    ).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'input[0].summary' }));
  });

  it('streams reasoning as OpenAI does: the item added, reasoning_text deltas, then the whole item done', () => {
    const events = run(chunks(THINKING_THEN_TOOL_CHUNKS));
    const names = events.map((e) => e.event);
    expect(names.slice(0, 11)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
    ]);
    expect(events[3].data).toMatchObject({
      item_id: rs(0),
      output_index: 0,
      content_index: 0,
      delta: 'Let me analyze ',
    });
    expect(events[6].data.item).toEqual(ITEMS[0]);
    expect(events[8].data.item).toEqual(ITEMS[1]);
    const completed = events.at(-1)?.data.response as ResponsesResponse;
    expect(completed.output.slice(0, 2)).toEqual(ITEMS);
    expect(completed.output[2]).toMatchObject({ type: 'function_call', call_id: 'toolu_1' });
  });
});

describe('responsesUsage', () => {
  it('reports the cached and reasoning parts as OpenAI does, within input_tokens and output_tokens', () => {
    expect(responsesUsage(USAGE_WITH_PARTS)).toEqual({
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 400, cache_write_tokens: 300 },
      output_tokens: 500,
      output_tokens_details: { reasoning_tokens: 200 },
      total_tokens: 1500,
      cost_rub: 0.0021,
      cost: 0.0021,
    });
  });
});
