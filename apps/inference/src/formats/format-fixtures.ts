import type { ChatCompletion, ChatCompletionChunk, ChatCompletionUsage } from '@gw/contracts';

/** Chat pipeline outputs for the translator specs. */
export const GENERATION_ID = 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10';
export const USAGE: ChatCompletionUsage = {
  prompt_tokens: 6,
  completion_tokens: 2,
  total_tokens: 8,
  cost_rub: 0.0021,
  cost: 0.0021,
};

export function completion(
  message: ChatCompletion['choices'][number]['message'],
  finishReason = 'stop',
): ChatCompletion {
  return {
    id: GENERATION_ID,
    object: 'chat.completion',
    created: 1767225600,
    model: 'demo/chat',
    provider: 'Mock Alpha',
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: USAGE,
  };
}

export function chunk(
  delta: ChatCompletionChunk['choices'][number]['delta'],
  finishReason: string | null = null,
): ChatCompletionChunk {
  return {
    id: GENERATION_ID,
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'demo/chat',
    provider: 'Mock Alpha',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(finishReason ? { usage: USAGE } : {}),
  };
}

export const TEXT_CHUNKS = [
  chunk({ role: 'assistant', content: 'hello' }),
  chunk({ content: ' there' }),
  chunk({}, 'stop'),
];

export const TOOL_CHUNKS = [
  chunk({
    role: 'assistant',
    tool_calls: [
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"Moscow"}' } }] }),
  chunk({}, 'tool_calls'),
];

export const TEXT_THEN_TOOL_CHUNKS = [
  chunk({ role: 'assistant', content: 'Let me look.' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
  }),
  chunk({}, 'tool_calls'),
];
