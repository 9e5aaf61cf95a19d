import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generationCost, type Pricing } from '@gw/pricing';
import { AnthropicWireAdapter } from './anthropic-wire.adapter';
import { OpenAiWireAdapter } from './openai-wire.adapter';
import { UpstreamAbort } from './upstream-abort';
import type { ChatAdapter, UpstreamUsage } from './upstream-chat';
import { UpstreamHttp } from './upstream-http';

/*
 * Invoices: the usage objects the providers document, sent over each wire as its stream carries
 * them (the gateway reads plain answers as streams too), read by the adapter and priced. Every
 * expected amount is worked out by hand in the comment beside it, prices in roubles per million
 * tokens (per thousand searches). Old billing in brackets where it differed.
 */

/** Claude Sonnet's prices at 100 RUB to the dollar: cache write 1.25x the input, cache read 0.1x. */
const sonnet: Pricing = {
  currency: 'RUB',
  prompt_per_million: '300',
  completion_per_million: '1500',
  input_cache_write_per_million: '375',
  input_cache_read_per_million: '30',
  web_search_per_thousand: '1000',
};
const gpt4o: Pricing = {
  currency: 'RUB',
  prompt_per_million: '250',
  completion_per_million: '1000',
  input_cache_read_per_million: '125',
  web_search_per_thousand: '2500',
};
const reasoner: Pricing = {
  currency: 'RUB',
  prompt_per_million: '110',
  completion_per_million: '440',
  internal_reasoning_per_million: '880',
};
const audioModel: Pricing = {
  currency: 'RUB',
  prompt_per_million: '250',
  completion_per_million: '1000',
  audio_per_million: '4000',
};
const vision: Pricing = {
  currency: 'RUB',
  prompt_per_million: '100',
  completion_per_million: '400',
  image_input_per_million: '200',
};

function anthropicStream(start: Record<string, unknown>, delta: Record<string, unknown>): string {
  const event = (name: string, data: Record<string, unknown>) =>
    `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  return [
    event('message_start', { message: { id: 'msg_1', role: 'assistant', content: [], usage: start } }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
    event('content_block_stop', { index: 0 }),
    event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: delta }),
    event('message_stop', {}),
  ].join('');
}

function openAiStream(usage: Record<string, unknown>): string {
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  return [
    data({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }),
    data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    data({ choices: [], usage }),
    'data: [DONE]\n\n',
  ].join('');
}

interface Invoice {
  label: string;
  wire: 'openai' | 'anthropic';
  body: string;
  pricing: Pricing;
  usage: UpstreamUsage;
  cost: string;
}

const INVOICES: Invoice[] = [
  {
    // Anthropic's prompt caching guide, first call: the book written to the five-minute cache.
    // 21 × 300 + 188 086 × 375 + 393 × 1500 = 6 300 + 70 532 250 + 589 500 = 71 128 050 → 71.12805 (57.0216: the write at the prompt price)
    label: 'Anthropic: a five-minute cache write',
    wire: 'anthropic',
    body: anthropicStream(
      { input_tokens: 21, cache_creation_input_tokens: 188086, cache_read_input_tokens: 0, output_tokens: 1 },
      { output_tokens: 393 },
    ),
    pricing: sonnet,
    usage: { prompt_tokens: 188107, completion_tokens: 393, cache_write_prompt_tokens: 188086 },
    cost: '71.12805',
  },
  {
    // The guide's second call: the book read from the cache.
    // 21 × 300 + 188 086 × 30 + 393 × 1500 = 6 300 + 5 642 580 + 589 500 = 6 238 380 → 6.23838
    label: 'Anthropic: a cache read',
    wire: 'anthropic',
    body: anthropicStream(
      { input_tokens: 21, cache_creation_input_tokens: 0, cache_read_input_tokens: 188086, output_tokens: 1 },
      { output_tokens: 393 },
    ),
    pricing: sonnet,
    usage: { prompt_tokens: 188107, completion_tokens: 393, cached_prompt_tokens: 188086 },
    cost: '6.23838',
  },
  {
    // The guide's mixed durations: 456 tokens for five minutes, 100 for an hour (2x the input: 600).
    // 50 × 300 + 456 × 375 + 100 × 600 + 200 × 1500 = 15 000 + 171 000 + 60 000 + 300 000 = 546 000 → 0.546 (0.4818)
    label: 'Anthropic: cache writes of five minutes and of an hour',
    wire: 'anthropic',
    body: anthropicStream(
      {
        input_tokens: 50,
        cache_creation_input_tokens: 556,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 456, ephemeral_1h_input_tokens: 100 },
        output_tokens: 1,
      },
      { output_tokens: 200 },
    ),
    pricing: sonnet,
    usage: {
      prompt_tokens: 606,
      completion_tokens: 200,
      cache_write_prompt_tokens: 556,
      cache_write_1h_prompt_tokens: 100,
    },
    cost: '0.546',
  },
  {
    // The web search tool's documented usage, the search counted in message_delta as the stream sends it.
    // 105 × 300 + 7123 × 30 + 7345 × 375 + 6039 × 1500 = 31 500 + 213 690 + 2 754 375 + 9 058 500 = 12 058 065 → 12.058065
    // plus one search at 1000 per thousand → 13.058065 (11.50719: no search, the write at the prompt price)
    label: 'Anthropic: a web search beside a cache read and write',
    wire: 'anthropic',
    body: anthropicStream(
      {
        input_tokens: 105,
        cache_read_input_tokens: 7123,
        cache_creation_input_tokens: 7345,
        output_tokens: 1,
      },
      { output_tokens: 6039, server_tool_use: { web_search_requests: 1 } },
    ),
    pricing: sonnet,
    usage: {
      prompt_tokens: 14573,
      completion_tokens: 6039,
      cached_prompt_tokens: 7123,
      cache_write_prompt_tokens: 7345,
      web_search_requests: 1,
    },
    cost: '13.058065',
  },
  {
    // OpenAI's prompt caching guide: 1920 of 2006 prompt tokens cached.
    // 86 × 250 + 1920 × 125 + 300 × 1000 = 21 500 + 240 000 + 300 000 = 561 500 → 0.5615
    label: 'OpenAI: a cache read',
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    }),
    pricing: gpt4o,
    usage: { prompt_tokens: 2006, completion_tokens: 300, cached_prompt_tokens: 1920 },
    cost: '0.5615',
  },
  {
    // OpenAI's reasoning guide: 1024 of 1186 completion tokens were reasoning.
    // 75 × 110 + 162 × 440 + 1024 × 880 = 8 250 + 71 280 + 901 120 = 980 650 → 0.98065
    label: 'OpenAI: reasoning tokens',
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 75,
      completion_tokens: 1186,
      total_tokens: 1261,
      completion_tokens_details: { reasoning_tokens: 1024 },
    }),
    pricing: reasoner,
    usage: { prompt_tokens: 75, completion_tokens: 1186, reasoning_tokens: 1024 },
    cost: '0.98065',
  },
  {
    // OpenRouter's usage accounting: 100 of 194 prompt tokens written to the cache.
    // 94 × 300 + 100 × 375 + 2 × 1500 = 28 200 + 37 500 + 3 000 = 68 700 → 0.0687 (0.0612)
    label: "OpenRouter: a cache write in OpenAI's shape",
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 194,
      completion_tokens: 2,
      total_tokens: 196,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    }),
    pricing: sonnet,
    usage: { prompt_tokens: 194, completion_tokens: 2, cache_write_prompt_tokens: 100 },
    cost: '0.0687',
  },
  {
    // Audio in the prompt (prompt_tokens_details.audio_tokens), and in the answer, which has no price of its own.
    // 17 × 250 + 31 × 4000 + 60 × 1000 = 4 250 + 124 000 + 60 000 = 188 250 → 0.18825 (0.072)
    label: 'OpenAI: audio tokens',
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 48,
      completion_tokens: 60,
      total_tokens: 108,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 31 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 50 },
    }),
    pricing: audioModel,
    usage: { prompt_tokens: 48, completion_tokens: 60, audio_prompt_tokens: 31, audio_completion_tokens: 50 },
    cost: '0.18825',
  },
  {
    // Images in the prompt (prompt_tokens_details.image_tokens).
    // 300 × 100 + 1000 × 200 + 10 × 400 = 30 000 + 200 000 + 4 000 = 234 000 → 0.234 (0.134)
    label: 'OpenAI: image tokens in the prompt',
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 1300,
      completion_tokens: 10,
      total_tokens: 1310,
      prompt_tokens_details: { cached_tokens: 0, image_tokens: 1000 },
    }),
    pricing: vision,
    usage: { prompt_tokens: 1300, completion_tokens: 10, image_prompt_tokens: 1000 },
    cost: '0.234',
  },
  {
    // Two searches counted in server_tool_use.
    // 20 × 250 + 100 × 1000 = 105 000 → 0.105, plus 2 × 2500 / 1000 = 5 → 5.105 (0.105)
    label: 'OpenAI wire: two web searches',
    wire: 'openai',
    body: openAiStream({
      prompt_tokens: 20,
      completion_tokens: 100,
      total_tokens: 120,
      server_tool_use: { web_search_requests: 2 },
    }),
    pricing: gpt4o,
    usage: { prompt_tokens: 20, completion_tokens: 100, web_search_requests: 2 },
    cost: '5.105',
  },
];

describe('invoices of documented provider usage', () => {
  let body = '';
  let server: Server;
  let url = '';
  const http = new UpstreamHttp(5000, 16);
  const adapters: Record<Invoice['wire'], ChatAdapter> = {
    openai: new OpenAiWireAdapter(http),
    anthropic: new AnthropicWireAdapter(http),
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await http.onApplicationShutdown();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each(INVOICES.map((invoice) => [invoice.label, invoice] as const))(
    'bills %s',
    async (_label, invoice) => {
      body = invoice.body;
      let usage: UpstreamUsage | undefined;
      const call = {
        baseUrl: invoice.wire === 'openai' ? `${url}/v1` : url,
        apiKey: 'key',
        request: { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 4096 },
        signal: new UpstreamAbort(),
      };
      for await (const batch of adapters[invoice.wire].stream(call))
        for (const event of batch) usage = event.usage ?? usage;
      expect(usage).toEqual(invoice.usage);
      expect(generationCost(invoice.pricing, usage as UpstreamUsage).toFixed()).toBe(invoice.cost);
    },
  );
});
