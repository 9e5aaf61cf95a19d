import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { firstValidationProblem, type ValidationProblem } from '../common/validation-problem';
import { ChatCompletionRequestDto } from './chat-completion-request.dto';

/** The first problem as the error envelope reports it: its param and message. */
function firstProblem(body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(ChatCompletionRequestDto, body), {
      whitelist: true,
      forbidNonWhitelisted: true,
    }),
  );
}

const base = { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] };
const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };

const user = (content: unknown) => ({ model: 'm', messages: [{ role: 'user', content }] });

describe('ChatCompletionRequestDto', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a prompt alone', { model: 'demo/chat', prompt: 'hi' }],
    [
      'every role',
      {
        model: 'm',
        messages: ['system', 'developer', 'user']
          .map((role) => ({ role, content: 'x' }))
          .concat([{ role: 'tool', content: 'r', tool_call_id: 'c1' } as never]),
      },
    ],
    [
      'content parts',
      user([
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://x/i.png' } },
      ]),
    ],
    [
      'an image as a data: URL with a detail',
      user([{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } }]),
    ],
    [
      'an assistant message sent back as the SDK returned it, refusal included',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a', refusal: null },
          { role: 'user', content: 'q2' },
        ],
      },
    ],
    [
      'null content of an assistant with tool_calls',
      {
        model: 'm',
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        ],
      },
    ],
    [
      'the ranges at their bounds',
      {
        ...base,
        temperature: 2,
        top_p: 0,
        frequency_penalty: -2,
        presence_penalty: 2,
        max_tokens: 1,
        max_completion_tokens: 1,
      },
    ],
    [
      'json_schema with its object',
      { ...base, response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } } },
    ],
    [
      'a tool_choice naming a declared tool',
      { ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'get_weather' } } },
    ],
    ['tool_choice required with tools', { ...base, tools: [tool], tool_choice: 'required' }],
    ['every reasoning effort of the alias table', { ...base, reasoning: { effort: 'xhigh' } }],
    [
      'web_search_options and user',
      { ...base, web_search_options: { search_context_size: 'low' }, user: 'u-1' },
    ],
    [
      'every provider preference',
      {
        ...base,
        provider: {
          only: ['Mock Alpha'],
          order: ['Mock Alpha'],
          ignore: ['Mock Broken'],
          allow_fallbacks: false,
          max_price: { prompt: '100.5', completion: 300 },
        },
      },
    ],
    [
      'the OpenAI fields a client such as LangChain sends by default',
      {
        ...base,
        stop: ['a', 'b', 'c', 'd'],
        n: 1,
        seed: -7,
        parallel_tool_calls: false,
        stream: true,
        stream_options: { include_usage: true },
        logit_bias: { '50256': -100, '15': 100 },
        metadata: { ticket: 'T-1' },
        store: false,
        logprobs: false,
        top_logprobs: 0,
      },
    ],
    ['a single stop string', { ...base, stop: '\n' }],
    [
      'those fields as null, as a client leaves them unset',
      {
        ...base,
        stop: null,
        n: null,
        seed: null,
        logit_bias: null,
        logprobs: null,
        top_logprobs: null,
        metadata: null,
      },
    ],
  ])('accepts %s', (_label, body) => {
    expect(firstProblem(body)).toBeNull();
  });

  it.each<[string, Record<string, unknown>, Partial<ValidationProblem>]>([
    [
      'neither messages nor prompt',
      { model: 'm' },
      { param: 'messages', message: 'Exactly one of messages or prompt is required' },
    ],
    ['both messages and prompt', { ...base, prompt: 'x' }, { param: 'prompt' }],
    [
      'a null messages beside a prompt',
      { model: 'demo/chat', prompt: 'hi', messages: null },
      { param: 'messages', message: 'messages must be an array' },
    ],
    [
      'a null prompt',
      { model: 'demo/chat', prompt: null },
      { param: 'prompt', message: 'prompt must be a string' },
    ],
    ['empty messages', { model: 'm', messages: [] }, { param: 'messages' }],
    [
      'an unknown role',
      { model: 'm', messages: [{ role: 'robot', content: 'x' }] },
      { param: 'messages[0].role' },
    ],
    [
      'a tool message without tool_call_id',
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      {
        param: 'messages[0].tool_call_id',
        message: 'messages[0].tool_call_id is required for a tool message',
      },
    ],
    [
      'a tool message with an empty tool_call_id',
      { model: 'm', messages: [{ role: 'tool', content: 'x', tool_call_id: '' }] },
      { param: 'messages[0].tool_call_id', message: 'messages[0].tool_call_id should not be empty' },
    ],
    ['null content of a user', user(null), { param: 'messages[0].content' }],
    [
      'missing content of a user',
      { model: 'm', messages: [{ role: 'user' }] },
      { param: 'messages[0].content' },
    ],
    [
      'null content of an assistant without tool_calls',
      { model: 'm', messages: [{ role: 'assistant', content: null }] },
      { param: 'messages[0].content' },
    ],
    ['an empty parts array', user([]), { param: 'messages[0].content' }],
    [
      'a part of an unknown type',
      user([{ type: 'input_audio', input_audio: {} }]),
      {
        param: 'messages[0].content[0].type',
        message: 'messages[0].content[0].type must be one of text, image_url',
      },
    ],
    [
      'a part that is not an object',
      user(['hi']),
      { param: 'messages[0].content[0]', message: 'messages[0].content[0] must be an object' },
    ],
    ['a text part without text', user([{ type: 'text' }]), { param: 'messages[0].content[0].text' }],
    [
      'a text part with a field of another part',
      user([{ type: 'text', text: 'a', image_url: { url: 'https://x/i.png' } }]),
      { param: 'messages[0].content[0]' },
    ],
    [
      'an image part without url',
      user([{ type: 'image_url', image_url: {} }]),
      { param: 'messages[0].content[0].image_url.url' },
    ],
    [
      'an image part whose url is a string',
      user([{ type: 'image_url', image_url: 'https://x/i.png' }]),
      { param: 'messages[0].content[0].image_url' },
    ],
    [
      'an image url that is no URL',
      user([
        { type: 'text', text: 'a' },
        { type: 'image_url', image_url: { url: 'not a url' } },
      ]),
      {
        param: 'messages[0].content[1].image_url.url',
        message: 'messages[0].content[1].image_url.url must be an http(s) URL or a data: URL',
      },
    ],
    [
      'an image url of another scheme',
      user([{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }]),
      { param: 'messages[0].content[0].image_url.url' },
    ],
    [
      'an unknown image detail',
      user([{ type: 'image_url', image_url: { url: 'https://x/i.png', detail: 'ultra' } }]),
      { param: 'messages[0].content[0].image_url.detail' },
    ],
    ['temperature above 2', { ...base, temperature: 2.01 }, { param: 'temperature' }],
    ['temperature below 0', { ...base, temperature: -0.1 }, { param: 'temperature' }],
    ['top_p above 1', { ...base, top_p: 1.5 }, { param: 'top_p' }],
    ['frequency_penalty below -2', { ...base, frequency_penalty: -3 }, { param: 'frequency_penalty' }],
    ['presence_penalty above 2', { ...base, presence_penalty: 2.5 }, { param: 'presence_penalty' }],
    ['max_tokens 0', { ...base, max_tokens: 0 }, { param: 'max_tokens' }],
    ['a fractional max_tokens', { ...base, max_tokens: 1.5 }, { param: 'max_tokens' }],
    [
      'max_completion_tokens negative',
      { ...base, max_completion_tokens: -5 },
      { param: 'max_completion_tokens' },
    ],
    [
      'an unknown response_format type',
      { ...base, response_format: { type: 'xml' } },
      { param: 'response_format.type' },
    ],
    [
      'json_schema without its object',
      { ...base, response_format: { type: 'json_schema' } },
      { param: 'response_format.json_schema' },
    ],
    [
      'a tool that is not a function',
      { ...base, tools: [{ type: 'retrieval', function: { name: 'x' } }] },
      { param: 'tools[0].type' },
    ],
    [
      'a tool without its function',
      { ...base, tools: [{ type: 'function' }] },
      { param: 'tools[0].function', message: 'tools[0].function is required' },
    ],
    [
      'a function without a name',
      { ...base, tools: [{ type: 'function', function: {} }] },
      { param: 'tools[0].function.name', message: 'tools[0].function.name is required' },
    ],
    [
      'a function name with spaces',
      { ...base, tools: [{ type: 'function', function: { name: 'get weather' } }] },
      { param: 'tools[0].function.name' },
    ],
    [
      'an unknown tool_choice string',
      { ...base, tools: [tool], tool_choice: 'sometimes' },
      { param: 'tool_choice' },
    ],
    [
      'a tool_choice naming an undeclared tool',
      { ...base, tools: [tool], tool_choice: { type: 'function', function: { name: 'other' } } },
      {
        param: 'tool_choice',
        message: 'tool_choice names the function other, which is not declared in tools',
      },
    ],
    ['tool_choice required without tools', { ...base, tool_choice: 'required' }, { param: 'tool_choice' }],
    [
      'an unknown reasoning effort',
      { ...base, reasoning: { effort: 'extreme' } },
      { param: 'reasoning.effort' },
    ],
    [
      'an unknown web_search_options size',
      { ...base, web_search_options: { search_context_size: 'huge' } },
      { param: 'web_search_options.search_context_size' },
    ],
    ['a user that is not a string', { ...base, user: 42 }, { param: 'user' }],
    ['an empty provider.only', { ...base, provider: { only: [] } }, { param: 'provider.only' }],
    [
      'provider.allow_fallbacks as a string',
      { ...base, provider: { allow_fallbacks: 'false' } },
      { param: 'provider.allow_fallbacks' },
    ],
    [
      'a negative max_price',
      { ...base, provider: { max_price: { prompt: -1 } } },
      { param: 'provider.max_price.prompt' },
    ],
    [
      'a max_price that is not a number',
      { ...base, provider: { max_price: { completion: 'cheap' } } },
      { param: 'provider.max_price.completion' },
    ],
    [
      'an unknown max_price key',
      { ...base, provider: { max_price: { image: '1' } } },
      { param: 'provider.max_price.image', message: 'property image should not exist' },
    ],
    ['an unknown provider key', { ...base, provider: { sort: 'price' } }, { param: 'provider.sort' }],
  ])('refuses %s', (_label, body, problem) => {
    expect(firstProblem(body)).toMatchObject(problem);
  });

  describe('an array where an object belongs', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['provider as an array of preferences', { ...base, provider: [{ only: ['Mock Beta'] }] }, 'provider'],
      ['provider as an empty array', { ...base, provider: [] }, 'provider'],
      ['reasoning', { ...base, reasoning: [] }, 'reasoning'],
      ['response_format', { ...base, response_format: [] }, 'response_format'],
      ['web_search_options', { ...base, web_search_options: [] }, 'web_search_options'],
      ['stream_options', { ...base, stream_options: [] }, 'stream_options'],
      ['provider.max_price', { ...base, provider: { max_price: [{ prompt: 1 }] } }, 'provider.max_price'],
      ['a function of a tool', { ...base, tools: [{ type: 'function', function: [] }] }, 'tools[0].function'],
      [
        'a function of a tool call',
        {
          model: 'm',
          messages: [
            { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: [] }] },
          ],
        },
        'messages[0].tool_calls[0].function',
      ],
      ['provider as a string', { ...base, provider: 'Mock Alpha' }, 'provider'],
    ])('refuses %s', (_label, body, param) => {
      expect(firstProblem(body)).toEqual({ param, message: `${param} must be an object` });
    });
  });

  describe('an item of an array of objects that is not an object', () => {
    it.each<[string, Record<string, unknown>, string]>([
      ['a message that is an empty array', { model: 'm', messages: [[]] }, 'messages[0]'],
      [
        'a second message that is an array',
        { model: 'm', messages: [{ role: 'user', content: 'hi' }, []] },
        'messages[1]',
      ],
      [
        'a message that is an array of messages',
        { model: 'm', messages: [[{ role: 'user', content: 'hi' }]] },
        'messages[0]',
      ],
      [
        'a message that is a string',
        { model: 'm', messages: [{ role: 'user', content: 'hi' }, 'hi'] },
        'messages[1]',
      ],
      ['a message that is null', { model: 'm', messages: [null] }, 'messages[0]'],
      ['a tool that is an array', { ...base, tools: [[]] }, 'tools[0]'],
      [
        'a tool call that is an array',
        { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [[]] }] },
        'messages[0].tool_calls[0]',
      ],
    ])('refuses %s', (_label, body, param) => {
      expect(firstProblem(body)).toEqual({ param, message: `${param} must be an object` });
    });
  });

  describe('the OpenAI fields it accepts but does not serve', () => {
    it.each<[string, Record<string, unknown>, ValidationProblem]>([
      ['n other than 1', { ...base, n: 2 }, { param: 'n', message: 'n must be 1' }],
      ['a fractional n', { ...base, n: 1.5 }, { param: 'n', message: 'n must be an integer number' }],
      ['n as a string', { ...base, n: '1' }, { param: 'n', message: 'n must be an integer number' }],
      [
        'logprobs true',
        { ...base, logprobs: true },
        { param: 'logprobs', message: 'logprobs are not supported' },
      ],
      [
        'logprobs as a string',
        { ...base, logprobs: 'false' },
        { param: 'logprobs', message: 'logprobs must be a boolean value' },
      ],
      [
        'top_logprobs above 20',
        { ...base, top_logprobs: 21 },
        { param: 'top_logprobs', message: 'top_logprobs must not be greater than 20' },
      ],
      [
        'five stop sequences',
        { ...base, stop: ['a', 'b', 'c', 'd', 'e'] },
        {
          param: 'stop',
          message: 'stop must be a non-empty string or an array of at most 4 non-empty strings',
        },
      ],
      [
        'an empty stop sequence',
        { ...base, stop: ['a', ''] },
        {
          param: 'stop',
          message: 'stop must be a non-empty string or an array of at most 4 non-empty strings',
        },
      ],
      [
        'a fractional seed',
        { ...base, seed: 1.5 },
        { param: 'seed', message: 'seed must be an integer number' },
      ],
      [
        'a seed beyond a safe integer',
        { ...base, seed: 1e20 },
        { param: 'seed', message: 'seed must not be greater than 9007199254740991' },
      ],
      [
        'parallel_tool_calls as a string',
        { ...base, parallel_tool_calls: 'true' },
        { param: 'parallel_tool_calls', message: 'parallel_tool_calls must be a boolean value' },
      ],
      [
        'include_usage as a string',
        { ...base, stream_options: { include_usage: 'yes' } },
        {
          param: 'stream_options.include_usage',
          message: 'stream_options.include_usage must be a boolean value',
        },
      ],
      [
        'a logit_bias above 100',
        { ...base, logit_bias: { '50256': 101 } },
        {
          param: 'logit_bias',
          message: 'logit_bias must be an object mapping token ids to numbers from -100 to 100',
        },
      ],
      [
        'a logit_bias keyed by a word',
        { ...base, logit_bias: { hello: 1 } },
        {
          param: 'logit_bias',
          message: 'logit_bias must be an object mapping token ids to numbers from -100 to 100',
        },
      ],
      [
        'a logit_bias as an array',
        { ...base, logit_bias: [1] },
        {
          param: 'logit_bias',
          message: 'logit_bias must be an object mapping token ids to numbers from -100 to 100',
        },
      ],
      [
        'a metadata value that is a number',
        { ...base, metadata: { a: 1 } },
        {
          param: 'metadata',
          message: expect.stringContaining('metadata must be an object of at most 16 string values'),
        },
      ],
      [
        'metadata with 17 keys',
        { ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
        { param: 'metadata', message: expect.stringContaining('at most 16') },
      ],
      [
        'store as a string',
        { ...base, store: 'no' },
        { param: 'store', message: 'store must be a boolean value' },
      ],
    ])('refuses %s', (_label, body, problem) => {
      expect(firstProblem(body)).toEqual(problem);
    });
  });

  describe('the most basic fault of a field', () => {
    it.each<[string, Record<string, unknown>, ValidationProblem]>([
      ['an empty body names the missing model', {}, { param: 'model', message: 'model is required' }],
      [
        'a number for model',
        { model: 7, prompt: 'hi' },
        { param: 'model', message: 'model must be a string' },
      ],
      [
        'a string temperature',
        { ...base, temperature: '1' },
        {
          param: 'temperature',
          message: 'temperature must be a number conforming to the specified constraints',
        },
      ],
      [
        'a string max_tokens',
        { ...base, max_tokens: '5' },
        { param: 'max_tokens', message: 'max_tokens must be an integer number' },
      ],
      [
        'an object for messages',
        { model: 'm', messages: {} },
        { param: 'messages', message: 'messages must be an array' },
      ],
      [
        'an unknown field before a type error',
        { model: 7, prompt: 'hi', temprature: 1 },
        { param: 'temprature', message: 'property temprature should not exist' },
      ],
    ])('%s', (_label, body, problem) => {
      expect(firstProblem(body)).toEqual(problem);
    });
  });
});
