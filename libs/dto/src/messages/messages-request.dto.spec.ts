import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { MessagesRequestDto } from './messages-request.dto';

/** The first problem as the error envelope reports it: its param and message. */
function firstProblem(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(MessagesRequestDto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const base = { model: 'demo/chat', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const tool = { name: 'get_weather', input_schema: { type: 'object' } };

describe('MessagesRequestDto', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a string message', base],
    [
      'every block kind in its turn',
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
              { type: 'image', source: { type: 'url', url: 'https://x/i.png' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hm', signature: 's' },
              { type: 'text', text: 'ok' },
              { type: 'tool_use', id: 't1', name: 'f', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [{ type: 'text', text: 'r' }],
                is_error: false,
                cache_control: { type: 'ephemeral' },
              },
            ],
          },
        ],
      },
    ],
    [
      'system as text blocks',
      { ...base, system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] },
    ],
    [
      'sampling at its bounds, top_k and stop_sequences',
      { ...base, temperature: 1, top_p: 0, top_k: 0, stop_sequences: ['END'] },
    ],
    [
      'a named tool_choice of a declared tool',
      {
        ...base,
        tools: [tool],
        tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      },
    ],
    ['thinking with a budget', { ...base, thinking: { type: 'enabled', budget_tokens: 1024 } }],
    [
      'an empty tool result and an empty prefilled answer',
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: '' }] },
          { role: 'assistant', content: '' },
        ],
      },
    ],
    [
      'metadata.user_id, stream and provider routing',
      { ...base, metadata: { user_id: 'u' }, stream: true, provider: { only: ['Mock Alpha'] } },
    ],
  ])('accepts %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no max_tokens', { model: 'demo/chat', messages: base.messages }, 'max_tokens'],
    ['no messages', { model: 'demo/chat', max_tokens: 8 }, 'messages'],
    [
      'a system role in messages',
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      'messages[0].role',
    ],
    [
      'a tool_use block from the user',
      {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }],
      },
      'messages[0].content[0]',
    ],
    [
      'an image without a source',
      { ...base, messages: [{ role: 'user', content: [{ type: 'image' }] }] },
      'messages[0].content[0].source',
    ],
    [
      'an image url that is no http(s) URL',
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'ftp://x/i.png' } }] },
        ],
      },
      'messages[0].content[0].source.url',
    ],
    [
      'a document block',
      { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] },
      'messages[0].content[0].type',
    ],
    ['an empty content array', { ...base, messages: [{ role: 'user', content: [] }] }, 'messages[0].content'],
    ['an empty user message', { ...base, messages: [{ role: 'user', content: '' }] }, 'messages[0].content'],
    [
      'an empty text block',
      { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      'messages[0].content[0].text',
    ],
    [
      'an empty text block in a tool result',
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: '' }] }],
          },
        ],
      },
      'messages[0].content[0].content[0].text',
    ],
    ['temperature above 1', { ...base, temperature: 1.5 }, 'temperature'],
    ['a system block that is not text', { ...base, system: [{ type: 'image' }] }, 'system[0]'],
    ['a tool without input_schema', { ...base, tools: [{ name: 'f' }] }, 'tools[0].input_schema'],
    [
      'a server tool',
      { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: {} }] },
      'tools[0].type',
    ],
    [
      'tool_choice tool without a name',
      { ...base, tools: [tool], tool_choice: { type: 'tool' } },
      'tool_choice.name',
    ],
    ['tool_choice any without tools', { ...base, tool_choice: { type: 'any' } }, 'tool_choice'],
    [
      'tool_choice naming an undeclared tool',
      { ...base, tools: [tool], tool_choice: { type: 'tool', name: 'other' } },
      'tool_choice',
    ],
    [
      'thinking budget below 1024',
      { ...base, thinking: { type: 'enabled', budget_tokens: 100 } },
      'thinking.budget_tokens',
    ],
    ['an unknown field', { ...base, service_tier: 'auto' }, 'service_tier'],
  ])('refuses %s', (_label, body, param) => {
    expect(firstProblem(body)?.param).toBe(param);
  });

  it('says which block is wrong, from the root of the body', () => {
    const body = {
      ...base,
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'tool_result', tool_use_id: 't' },
          ],
        },
      ],
    };
    expect(firstProblem(body)).toEqual({
      param: 'messages[0].content[1]',
      message: 'messages[0].content[1]: tool_result blocks belong to user messages',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a message that is an empty array', { ...base, messages: [[]] }, 'messages[0]'],
    [
      'a second message that is a number',
      { ...base, messages: [{ role: 'user', content: 'hi' }, 1] },
      'messages[1]',
    ],
    ['a tool that is an array', { ...base, tools: [[]] }, 'tools[0]'],
    ['tool_choice as an array', { ...base, tool_choice: [] }, 'tool_choice'],
    ['thinking as an array', { ...base, thinking: [] }, 'thinking'],
    ['metadata as an array', { ...base, metadata: [] }, 'metadata'],
    ['provider as an array', { ...base, provider: [{ only: ['Mock Beta'] }] }, 'provider'],
  ])('refuses %s as not an object', (_label, body, param) => {
    expect(firstProblem(body)).toEqual({ param, message: `${param} must be an object` });
  });
});
