import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ChatCompletionRequestDto } from './chat-completion-request.dto';

/** The path of the first failing field, written as the gateway's error `param` is. */
function firstProblem(body: Record<string, unknown>): { param: string; message: string } | null {
  const errors = validateSync(plainToInstance(ChatCompletionRequestDto, body), { whitelist: true, forbidNonWhitelisted: true });
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

const base = { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] };
const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };

describe('ChatCompletionRequestDto', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a prompt alone', { model: 'demo/chat', prompt: 'hi' }],
    ['every role', { model: 'm', messages: ['system', 'developer', 'user'].map((role) => ({ role, content: 'x' })).concat([{ role: 'tool', content: 'r', tool_call_id: 'c1' } as never]) }],
    ['content parts', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://x/i.png' } }] }] }],
    ['null content of an assistant with tool_calls', { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }] }],
    ['the ranges at their bounds', { ...base, temperature: 2, top_p: 0, frequency_penalty: -2, presence_penalty: 2, max_tokens: 1, max_completion_tokens: 1 }],
    ['json_schema with its object', { ...base, response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } } }],
    ['a tool_choice naming a declared tool', { ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'get_weather' } } }],
    ['tool_choice required with tools', { ...base, tools: [tool], tool_choice: 'required' }],
    ['every reasoning effort of the alias table', { ...base, reasoning: { effort: 'xhigh' } }],
    ['web_search_options and user', { ...base, web_search_options: { search_context_size: 'low' }, user: 'u-1' }],
    ['every provider preference', { ...base, provider: { only: ['Mock Alpha'], order: ['Mock Alpha'], ignore: ['Mock Broken'], allow_fallbacks: false, max_price: { prompt: '100.5', completion: 300 } } }],
  ])('accepts %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['neither messages nor prompt', { model: 'm' }, 'messages'],
    ['both messages and prompt', { ...base, prompt: 'x' }, 'prompt'],
    ['empty messages', { model: 'm', messages: [] }, 'messages'],
    ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    ['a tool message without tool_call_id', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['null content of a user', { model: 'm', messages: [{ role: 'user', content: null }] }, 'messages[0].content'],
    ['missing content of a user', { model: 'm', messages: [{ role: 'user' }] }, 'messages[0].content'],
    ['null content of an assistant without tool_calls', { model: 'm', messages: [{ role: 'assistant', content: null }] }, 'messages[0].content'],
    ['an empty parts array', { model: 'm', messages: [{ role: 'user', content: [] }] }, 'messages[0].content'],
    ['a text part without text', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content'],
    ['an image part without url', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages[0].content'],
    ['temperature above 2', { ...base, temperature: 2.01 }, 'temperature'],
    ['temperature below 0', { ...base, temperature: -0.1 }, 'temperature'],
    ['top_p above 1', { ...base, top_p: 1.5 }, 'top_p'],
    ['frequency_penalty below -2', { ...base, frequency_penalty: -3 }, 'frequency_penalty'],
    ['presence_penalty above 2', { ...base, presence_penalty: 2.5 }, 'presence_penalty'],
    ['max_tokens 0', { ...base, max_tokens: 0 }, 'max_tokens'],
    ['a fractional max_tokens', { ...base, max_tokens: 1.5 }, 'max_tokens'],
    ['max_completion_tokens negative', { ...base, max_completion_tokens: -5 }, 'max_completion_tokens'],
    ['an unknown response_format type', { ...base, response_format: { type: 'xml' } }, 'response_format.type'],
    ['json_schema without its object', { ...base, response_format: { type: 'json_schema' } }, 'response_format.json_schema'],
    ['a tool that is not a function', { ...base, tools: [{ type: 'retrieval', function: { name: 'x' } }] }, 'tools[0].type'],
    ['a function name with spaces', { ...base, tools: [{ type: 'function', function: { name: 'get weather' } }] }, 'tools[0].function.name'],
    ['an unknown tool_choice string', { ...base, tools: [tool], tool_choice: 'sometimes' }, 'tool_choice'],
    ['a tool_choice naming an undeclared tool', { ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'other' } } }, 'tool_choice'],
    ['tool_choice required without tools', { ...base, tool_choice: 'required' }, 'tool_choice'],
    ['an unknown reasoning effort', { ...base, reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    ['an unknown web_search_options size', { ...base, web_search_options: { search_context_size: 'huge' } }, 'web_search_options.search_context_size'],
    ['a user that is not a string', { ...base, user: 42 }, 'user'],
    ['an empty provider.only', { ...base, provider: { only: [] } }, 'provider.only'],
    ['provider.allow_fallbacks as a string', { ...base, provider: { allow_fallbacks: 'false' } }, 'provider.allow_fallbacks'],
    ['a negative max_price', { ...base, provider: { max_price: { prompt: -1 } } }, 'provider.max_price.prompt'],
    ['a max_price that is not a number', { ...base, provider: { max_price: { completion: 'cheap' } } }, 'provider.max_price.completion'],
    ['an unknown max_price key', { ...base, provider: { max_price: { image: '1' } } }, 'provider.max_price.image'],
    ['an unknown provider key', { ...base, provider: { sort: 'price' } }, 'provider.sort'],
  ])('refuses %s naming %s', (_label, body, param) => {
    expect(firstProblem(body)).toMatchObject({ param });
  });

  it('explains a tool_choice that names an undeclared tool', () => {
    expect(firstProblem({ ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'other' } } })?.message).toBe(
      'tool_choice names the function other, which is not declared in tools',
    );
  });
});
