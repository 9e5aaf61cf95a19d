import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { ResponsesRequestDto } from './responses-request.dto';

/** The first problem as the error envelope reports it: its param and message. */
function firstProblem(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(ResponsesRequestDto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const base = { model: 'demo/chat', input: 'hi' };
const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object' } };

describe('ResponsesRequestDto', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a string input', base],
    [
      'every input item kind',
      {
        model: 'm',
        input: [
          { role: 'developer', content: 'rules' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'look' },
              { type: 'input_image', image_url: 'data:image/png;base64,AA', detail: 'auto' },
            ],
          },
          {
            type: 'message',
            role: 'assistant',
            id: 'msg_1',
            status: 'completed',
            content: [{ type: 'output_text', text: 'ok', annotations: [] }],
          },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'c1',
            name: 'f',
            arguments: '{}',
            status: 'completed',
          },
          { type: 'function_call_output', call_id: 'c1', output: 'done' },
        ],
      },
    ],
    [
      'every setting',
      {
        ...base,
        instructions: 'x',
        max_output_tokens: 1,
        temperature: 2,
        top_p: 0,
        user: 'u',
        metadata: { a: 'b' },
        store: false,
        parallel_tool_calls: true,
        stream: true,
      },
    ],
    [
      'a named tool_choice of a declared tool',
      { ...base, tools: [tool], tool_choice: { type: 'function', name: 'get_weather' } },
    ],
    [
      'text.format json_schema with name and schema',
      {
        ...base,
        text: { format: { type: 'json_schema', name: 'a', schema: { type: 'object' }, strict: true } },
      },
    ],
    ['reasoning effort and summary', { ...base, reasoning: { effort: 'minimal', summary: 'auto' } }],
    ['provider routing', { ...base, provider: { only: ['Mock Beta'] } }],
  ])('accepts %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no input', { model: 'demo/chat' }, 'input'],
    ['an empty input array', { model: 'demo/chat', input: [] }, 'input'],
    [
      'an unknown part type',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type',
    ],
    [
      'an image by file_id',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
      'input[0].content[0].image_url',
    ],
    [
      'an image url that is no URL',
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'picture.png' }] }] },
      'input[0].content[0].image_url',
    ],
    ['an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    ['max_output_tokens of 0', { ...base, max_output_tokens: 0 }, 'max_output_tokens'],
    ['temperature above 2', { ...base, temperature: 2.5 }, 'temperature'],
    ['a non-function tool', { ...base, tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [
      'a tool name with spaces',
      { ...base, tools: [{ type: 'function', name: 'get weather' }] },
      'tools[0].name',
    ],
    ['tool_choice required without tools', { ...base, tool_choice: 'required' }, 'tool_choice'],
    [
      'tool_choice naming an undeclared tool',
      { ...base, tools: [tool], tool_choice: { type: 'function', name: 'other' } },
      'tool_choice',
    ],
    [
      'json_schema without a schema',
      { ...base, text: { format: { type: 'json_schema', name: 'a' } } },
      'text.format.schema',
    ],
    ['an unknown reasoning effort', { ...base, reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    [
      'previous_response_id, which is not supported',
      { ...base, previous_response_id: 'resp_1' },
      'previous_response_id',
    ],
    ['a metadata value that is not a string', { ...base, metadata: { a: 1 } }, 'metadata'],
  ])('refuses %s', (_label, body, param) => {
    expect(firstProblem(body)?.param).toBe(param);
  });

  it('says which input item is wrong', () => {
    expect(
      firstProblem({ model: 'm', input: ['ok', { type: 'function_call', call_id: 'c', name: 'f' }] }),
    ).toEqual({ param: 'input[0]', message: 'input[0] must be an object' });
    expect(firstProblem({ model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f' }] })).toEqual(
      { param: 'input[0].arguments', message: 'input[0].arguments must be a string' },
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a tool that is an array', { ...base, tools: [[]] }, 'tools[0]'],
    ['text.format as an array', { ...base, text: { format: [] } }, 'text.format'],
    ['text as an array', { ...base, text: [] }, 'text'],
    ['reasoning as an array', { ...base, reasoning: [] }, 'reasoning'],
    ['provider as an array', { ...base, provider: [] }, 'provider'],
  ])('refuses %s as not an object', (_label, body, param) => {
    expect(firstProblem(body)).toEqual({ param, message: `${param} must be an object` });
  });
});
