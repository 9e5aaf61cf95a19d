import Decimal from 'decimal.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectEventually } from '@gw/testing';
import { DistributedStack } from './support/distributed-stack';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, seedOrganization, sseData } from './support/gateway-http';
import { writePricedCatalogue } from './support/priced-catalogue';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

/**
 * A chat whose provider reports a cache write (five-minute and one-hour), a cache read, reasoning,
 * audio and images in the prompt and two web searches, on demo/chat priced as PRICED_DEMO_CHAT
 * says (issue 25). The prompt's text is 'cached answer' and seven markers: 9 words + 4 = 13
 * tokens; the answer 'cached answer' is 2.
 */
const CONTENT =
  'cached answer [[cache-write:1000]] [[cache-write-1h:500]] [[cache-read:2000]] [[reasoning:300]] [[web-search:2]] [[audio-in:100]] [[image-in:50]]';

interface Expected {
  provider: string;
  cost: string;
  chat: Record<string, unknown>;
  messages: Record<string, unknown>;
}

/** The usage each wire reports for CONTENT, and what it costs, worked out by hand. */
const WIRES: Record<'openai' | 'anthropic', Expected> = {
  openai: {
    provider: 'Mock Alpha',
    // Prompt 13 + 2000 + 1500 + 100 + 50 = 3663: 13 × 150 + 2000 read × 15 + 1500 written × 187.5 (the OpenAI wire
    // tells no duration) + 100 audio × 3000 + 50 image × 300 = 1 950 + 30 000 + 281 250 + 300 000 + 15 000 = 628 200.
    // Answer 2 + 300 = 302: 2 × 600 + 300 reasoning × 900 = 1 200 + 270 000 = 271 200. 899 400 / 10⁶ = 0.8994;
    // two searches 2 × 2500 / 1000 = 5; the request 0.50 / 1000 = 0.0005 → 5.8999
    cost: '5.8999',
    chat: {
      prompt_tokens: 3663,
      completion_tokens: 302,
      total_tokens: 3965,
      prompt_tokens_details: {
        cached_tokens: 2000,
        cache_write_tokens: 1500,
        cache_write_1h_tokens: 0,
        audio_tokens: 100,
        cached_audio_tokens: 0,
        image_tokens: 50,
      },
      completion_tokens_details: { reasoning_tokens: 300, audio_tokens: 0, image_tokens: 0 },
      server_tool_use: { web_search_requests: 2 },
    },
    messages: {
      input_tokens: 163,
      output_tokens: 302,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 1500,
      cache_creation: { ephemeral_5m_input_tokens: 1500, ephemeral_1h_input_tokens: 0 },
      server_tool_use: { web_search_requests: 2 },
    },
  },
  anthropic: {
    provider: 'Mock Beta',
    // input_tokens 13 + 100 audio + 50 image = 163 (Anthropic tells them not apart) × 200 = 32 600; 2000 read × 20 =
    // 40 000; 1000 written for five minutes × 250 = 250 000; 500 for an hour × 400 (1.6 × 250) = 200 000; output
    // 2 + 300 reasoning = 302 × 800 = 241 600. 764 200 / 10⁶ = 0.7642; two searches 5 → 5.7642
    cost: '5.7642',
    chat: {
      prompt_tokens: 3663,
      completion_tokens: 302,
      total_tokens: 3965,
      prompt_tokens_details: {
        cached_tokens: 2000,
        cache_write_tokens: 1500,
        cache_write_1h_tokens: 500,
        audio_tokens: 0,
        cached_audio_tokens: 0,
        image_tokens: 0,
      },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, image_tokens: 0 },
      server_tool_use: { web_search_requests: 2 },
    },
    messages: {
      input_tokens: 163,
      output_tokens: 302,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 1500,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 500 },
      server_tool_use: { web_search_requests: 2 },
    },
  },
};

function invoices(target: () => { api: string; adminToken: string }): void {
  const balance = async (key: string) =>
    new Decimal((await http('GET', `${target().api}/v1/balance`, { token: key })).body.amount);
  const lastJson = (text: string, type: string) =>
    sseData(text)
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data))
      .filter((data) => data.type === type)
      .at(-1);

  describe.each(['openai', 'anthropic'] as const)('the %s wire', (wire) => {
    const expected = WIRES[wire];

    it.each([false, true])(
      'charges a chat exactly its hand-computed invoice, shown in usage and the history detail (stream: %s)',
      async (stream) => {
        const org = await seedOrganization(target().api, target().adminToken, '100.00');
        const res = await http('POST', `${target().api}/v1/chat/completions`, {
          token: org.apiKey,
          body: {
            model: 'demo/chat',
            stream,
            provider: { only: [expected.provider] },
            messages: [{ role: 'user', content: CONTENT }],
          },
        });
        expect(res.status).toBe(200);
        const answer = stream ? JSON.parse(sseData(res.text).at(-2) as string) : res.body;
        expect(answer.usage).toEqual({
          ...expected.chat,
          cost_rub: Number(expected.cost),
          cost: Number(expected.cost),
        });
        await expectEventually(async () =>
          expect(await balance(org.apiKey)).toEqual(new Decimal(100).minus(expected.cost)),
        );
        const detail = await http('GET', `${target().api}/v1/history/generations/${answer.id}`, {
          token: org.apiKey,
        });
        expect(detail.body).toMatchObject({
          clientCost: new Decimal(expected.cost).toFixed(8),
          usage: expected.chat,
        });
      },
    );

    it.each([false, true])(
      'shows the parts in the Responses and Messages usage, each charged the same (stream: %s)',
      async (stream) => {
        const org = await seedOrganization(target().api, target().adminToken, '100.00');
        const model = `demo/chat@provider=${expected.provider}`;
        const responses = await http('POST', `${target().api}/v1/responses`, {
          token: org.apiKey,
          body: { model, stream, input: CONTENT },
        });
        expect(responses.status).toBe(200);
        const response = stream ? lastJson(responses.text, 'response.completed').response : responses.body;
        const chat = expected.chat as {
          prompt_tokens: number;
          completion_tokens: number;
          prompt_tokens_details: { cached_tokens: number; cache_write_tokens: number };
          completion_tokens_details: { reasoning_tokens: number };
        };
        expect(response.usage).toEqual({
          input_tokens: chat.prompt_tokens,
          input_tokens_details: {
            cached_tokens: chat.prompt_tokens_details.cached_tokens,
            cache_write_tokens: chat.prompt_tokens_details.cache_write_tokens,
          },
          output_tokens: chat.completion_tokens,
          output_tokens_details: { reasoning_tokens: chat.completion_tokens_details.reasoning_tokens },
          total_tokens: chat.prompt_tokens + chat.completion_tokens,
          cost_rub: Number(expected.cost),
          cost: Number(expected.cost),
        });
        const messages = await http('POST', `${target().api}/v1/messages`, {
          token: org.apiKey,
          body: { model, stream, max_tokens: 64, messages: [{ role: 'user', content: CONTENT }] },
        });
        expect(messages.status).toBe(200);
        const usage = stream ? lastJson(messages.text, 'message_delta').usage : messages.body.usage;
        expect(usage).toEqual({
          ...expected.messages,
          cost_rub: Number(expected.cost),
          cost: Number(expected.cost),
        });
        await expectEventually(async () =>
          expect(await balance(org.apiKey)).toEqual(
            new Decimal(100).minus(expected.cost).minus(expected.cost),
          ),
        );
      },
    );
  });
}

describe('invoices (embedded app)', () => {
  let gateway: EmbeddedGateway;
  beforeAll(async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'gw-invoices-'));
    gateway = await startEmbeddedGateway('invoices', { CATALOGUE_FILE: writePricedCatalogue(scratch) });
  }, 120_000);
  afterAll(() => gateway?.stop());

  invoices(() => ({ api: gateway.api, adminToken: gateway.adminToken }));
});

describe('invoices (distributed mode)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gw-invoices-'));
  const stack = new DistributedStack({
    database: 'e2e_invoices',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
    env: { inference: { CATALOGUE_FILE: writePricedCatalogue(scratch) } },
  });
  beforeAll(() => stack.start(), 120_000);
  afterAll(() => stack.stop());

  invoices(() => ({ api: stack.api, adminToken: ADMIN_TOKEN }));
});
