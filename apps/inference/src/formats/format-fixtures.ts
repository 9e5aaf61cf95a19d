import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionUsage,
  ReasoningDetail,
} from '@gw/contracts';

/** Chat pipeline outputs for the translator specs. */
export const GENERATION_ID = 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10';
export const USAGE: ChatCompletionUsage = {
  prompt_tokens: 6,
  completion_tokens: 2,
  total_tokens: 8,
  prompt_tokens_details: {
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    audio_tokens: 0,
    cached_audio_tokens: 0,
    image_tokens: 0,
  },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  server_tool_use: { web_search_requests: 0 },
  cost_rub: 0.0021,
  cost: 0.0021,
};

/** A provider's usage with every part reported: of the 1000 prompt tokens 400 read from the cache and 300 written (100 for an hour), 200 of the 500 answer tokens reasoning, two searches. */
export const USAGE_WITH_PARTS: ChatCompletionUsage = {
  ...USAGE,
  prompt_tokens: 1000,
  completion_tokens: 500,
  total_tokens: 1500,
  prompt_tokens_details: {
    ...USAGE.prompt_tokens_details,
    cached_tokens: 400,
    cache_write_tokens: 300,
    cache_write_1h_tokens: 100,
  },
  completion_tokens_details: { ...USAGE.completion_tokens_details, reasoning_tokens: 200 },
  server_tool_use: { web_search_requests: 2 },
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

/**
 * Anthropic's thinking blocks as its extended-thinking documentation shows them: a thinking block
 * with its signature, and a redacted one whose data is the encrypted thinking.
 */
export const THINKING = {
  type: 'thinking',
  thinking: 'Let me analyze this step by step...',
  signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....',
} as const;
export const REDACTED_THINKING = {
  type: 'redacted_thinking',
  data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj6M6zOmOw==',
} as const;

/** The same two as the chat's reasoning items, as the Anthropic wire yields them. */
export const THINKING_DETAILS: ReasoningDetail[] = [
  {
    type: 'reasoning.text',
    text: THINKING.thinking,
    signature: THINKING.signature,
    format: 'anthropic-claude-v1',
    index: 0,
  },
  { type: 'reasoning.encrypted', data: REDACTED_THINKING.data, format: 'anthropic-claude-v1', index: 1 },
];

/** A streamed answer that thinks (in two pieces, then the signature), has redacted thinking, and calls a tool. */
export const THINKING_THEN_TOOL_CHUNKS = [
  chunk({
    role: 'assistant',
    reasoning: 'Let me analyze ',
    reasoning_details: [
      { type: 'reasoning.text', text: 'Let me analyze ', format: 'anthropic-claude-v1', index: 0 },
    ],
  }),
  chunk({
    reasoning: 'this step by step...',
    reasoning_details: [
      { type: 'reasoning.text', text: 'this step by step...', format: 'anthropic-claude-v1', index: 0 },
    ],
  }),
  chunk({
    reasoning_details: [
      { type: 'reasoning.text', signature: THINKING.signature, format: 'anthropic-claude-v1', index: 0 },
    ],
  }),
  chunk({ reasoning_details: [THINKING_DETAILS[1]] }),
  chunk({
    tool_calls: [
      { index: 0, id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '{}' } },
    ],
  }),
  chunk({}, 'tool_calls'),
];
