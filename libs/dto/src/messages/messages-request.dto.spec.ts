import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { MessagesRequestDto } from './messages-request.dto';

/** The path of the first failing field, written as the gateway's error `param` is. */
function firstProblem(body: Record<string, unknown>): { param: string; message: string } | null {
  const errors = validateSync(plainToInstance(MessagesRequestDto, body), { whitelist: true, forbidNonWhitelisted: true });
  const walk = (error: ValidationError, prefix: string): { param: string; message: string } | null => {
    const param = prefix ? (/^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`) : error.property;
    const message = Object.values(error.constraints ?? {})[0];
    if (message) return { param, message };
    for (const child of error.children ?? []) {
      const found = walk(child, param);
      if (found) return found;
    }
    return null;
  };
  return errors.length > 0 ? walk(errors[0], '') : null;
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
          { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }, { type: 'image', source: { type: 'url', url: 'https://x/i.png' } }] },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, { type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'f', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'r' }], is_error: false, cache_control: { type: 'ephemeral' } }] },
        ],
      },
    ],
    ['system as text blocks', { ...base, system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] }],
    ['sampling at its bounds, top_k and stop_sequences', { ...base, temperature: 1, top_p: 0, top_k: 0, stop_sequences: ['END'] }],
    ['a named tool_choice of a declared tool', { ...base, tools: [tool], tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true } }],
    ['thinking with a budget', { ...base, thinking: { type: 'enabled', budget_tokens: 1024 } }],
    ['metadata.user_id, stream and provider routing', { ...base, metadata: { user_id: 'u' }, stream: true, provider: { only: ['Mock Alpha'] } }],
  ])('accepts %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no max_tokens', { model: 'demo/chat', messages: base.messages }, 'max_tokens'],
    ['no messages', { model: 'demo/chat', max_tokens: 8 }, 'messages'],
    ['a system role in messages', { ...base, messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role'],
    ['a tool_use block from the user', { ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] }, 'messages[0].content'],
    ['an image without a source', { ...base, messages: [{ role: 'user', content: [{ type: 'image' }] }] }, 'messages[0].content'],
    ['a document block', { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }, 'messages[0].content'],
    ['temperature above 1', { ...base, temperature: 1.5 }, 'temperature'],
    ['a system block that is not text', { ...base, system: [{ type: 'image' }] }, 'system'],
    ['a tool without input_schema', { ...base, tools: [{ name: 'f' }] }, 'tools[0].input_schema'],
    ['a server tool', { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: {} }] }, 'tools[0].type'],
    ['tool_choice tool without a name', { ...base, tools: [tool], tool_choice: { type: 'tool' } }, 'tool_choice.name'],
    ['tool_choice any without tools', { ...base, tool_choice: { type: 'any' } }, 'tool_choice'],
    ['tool_choice naming an undeclared tool', { ...base, tools: [tool], tool_choice: { type: 'tool', name: 'other' } }, 'tool_choice'],
    ['thinking budget below 1024', { ...base, thinking: { type: 'enabled', budget_tokens: 100 } }, 'thinking.budget_tokens'],
    ['an unknown field', { ...base, service_tier: 'auto' }, 'service_tier'],
  ])('refuses %s naming %s', (_label, body, param) => {
    expect(firstProblem(body)?.param).toBe(param);
  });

  it('says which block is wrong', () => {
    const body = { ...base, messages: [{ role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'tool_result', tool_use_id: 't' }] }] };
    expect(firstProblem(body)?.message).toBe('content[1]: tool_result blocks belong to user messages');
  });
});
