import type { ChatCompletionRequestDto, ChatMessageDto } from '@gw/dto';
import type { Pricing } from '@gw/pricing';
import type { ProviderRoute } from '@gw/catalogue';
import {
  conversation,
  forwardedFields,
  withReasoningEffort,
  promptTokensEstimate,
  toUpstreamRequest,
} from './chat-plan';

const body = (fields: Partial<ChatCompletionRequestDto> = {}): ChatCompletionRequestDto => ({
  model: 'demo/chat',
  messages: [{ role: 'user', content: 'hi' }],
  ...fields,
});
const user = (content: ChatMessageDto['content']): ChatMessageDto[] => [{ role: 'user', content }];

describe('the prompt size', () => {
  // 'Count slowly to five [[drop]] ok' is 32 bytes and 6 words: Mock Alpha counts 6 + 4 = 10 tokens.
  const shortPrompt = body({ messages: user('Count slowly to five [[drop]] ok') });

  it.each<[string, ChatCompletionRequestDto, number]>([
    ['a short message', shortPrompt, 8],
    ['the prompt field as one user message', body({ messages: undefined, prompt: 'one two three' }), 4],
    [
      'text parts and an image part',
      body({
        messages: user([
          { type: 'text', text: 'look at this' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ]),
      }),
      3 + 85,
    ],
    ['tools as JSON', body({ tools: [{ type: 'function', function: { name: 'f' } }] }), 1 + 12],
    [
      'an assistant tool call and its tool message',
      body({
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
      }),
      18 + 1 + 2,
    ],
  ])('of %s: the estimate', (_label, request, estimate) => {
    expect(promptTokensEstimate(conversation(request), request)).toBe(estimate);
  });

  it('estimates a long prompt near what a tokenizer counts', () => {
    const request = body({ messages: user('word '.repeat(100_000)) });
    expect(promptTokensEstimate(conversation(request), request)).toBe(125_000);
  });
});

describe('withReasoningEffort', () => {
  it('leaves a body without reasoning_effort as it is', () => {
    const plain = body({ reasoning: { effort: 'high' } });
    expect(withReasoningEffort(plain)).toBe(plain);
  });

  it('moves reasoning_effort into reasoning.effort, keeping the other reasoning settings', () => {
    const moved = withReasoningEffort(body({ reasoning_effort: 'low', reasoning: { max_tokens: 256 } }));
    expect(moved.reasoning).toEqual({ max_tokens: 256, effort: 'low' });
    expect(moved).not.toHaveProperty('reasoning_effort');
  });

  it('refuses both forms at once, naming reasoning_effort', () => {
    expect(() =>
      withReasoningEffort(body({ reasoning_effort: 'low', reasoning: { effort: 'high' } })),
    ).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'reasoning_effort' }));
  });
});

describe('forwardedFields', () => {
  const tools = [{ type: 'function' as const, function: { name: 'f' } }];
  it.each<[string, Partial<ChatCompletionRequestDto>, Record<string, unknown>]>([
    ['nothing when none is set', {}, {}],
    ['stop as a list', { stop: 'END' }, { stop: ['END'] }],
    ['a stop list as it is', { stop: ['a', 'b'] }, { stop: ['a', 'b'] }],
    ['seed when an integer', { seed: 42 }, { seed: 42 }],
    ['parallel_tool_calls with tools', { parallel_tool_calls: false, tools }, { parallel_tool_calls: false }],
    ['no parallel_tool_calls without tools, which OpenAI refuses', { parallel_tool_calls: false }, {}],
    ['logit_bias of numbers', { logit_bias: { '50256': -100 } }, { logit_bias: { '50256': -100 } }],
    [
      'nothing of the fields that are not forwarded',
      {
        n: 1,
        store: false,
        logprobs: false,
        top_logprobs: 0,
        metadata: { a: 'b' },
        stream_options: { include_usage: true },
      },
      {},
    ],
  ])('passes on %s', (_label, fields, expected) => {
    expect(forwardedFields(body(fields))).toEqual(expected);
  });
});

describe('toUpstreamRequest', () => {
  const route = { upstreamModel: 'alpha-chat', pricing: {} as Pricing } as ProviderRoute;

  it('carries the sampling fields and the forwarded ones', () => {
    const request = body({ temperature: 0.2, stop: ['END'], seed: 7 });
    expect(toUpstreamRequest(route, request, conversation(request), 64)).toEqual({
      model: 'alpha-chat',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 64,
      temperature: 0.2,
      stop: ['END'],
      seed: 7,
    });
  });
});
