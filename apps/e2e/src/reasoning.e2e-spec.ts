import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { DistributedStack } from './support/distributed-stack';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
/** The Anthropic-wire demo provider, which refuses a continuation that lost its thinking (apps/mock-upstream/src/chat/mock-thinking.ts). */
const MODEL = 'demo/chat@provider=Mock Beta';
/** `[[use-tool]]` makes the mock call the first tool of its own accord (tool_choice auto, as thinking requires). */
const ASK = 'weather Paris [[use-tool]]';
/** The mock's thinking about the answer "weather Paris": 7 words, billed with the 2 of the answer. */
const THOUGHT = 'The answer is 2 words: weather Paris';
const MISSING_THINKING = /Expected `thinking` or `redacted_thinking`, but found `tool_use`/;

/** Test bodies are asserted field by field, so they are read untyped. */
const loose = (value: unknown): any => value;

interface Target {
  api: string;
  adminToken: string;
}

/**
 * Issue 27: a two-turn tool-use conversation with thinking on the Anthropic-wire demo provider,
 * through each API and its official SDK, plain and streamed. The first turn's thinking comes back
 * with its signature; sent back with the second turn, it reaches the provider unchanged, and the
 * provider (which checks the signature) continues; without it the provider refuses, so the check
 * is real.
 */
function reasoningConversations(target: () => Target): void {
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    const org = await seedOrganization(target().api, target().adminToken, '10.00');
    openai = new OpenAI({ apiKey: org.apiKey, baseURL: `${target().api}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: org.apiKey, baseURL: target().api, maxRetries: 0 });
  });

  describe('Messages, with the Anthropic SDK', () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} } }];
    const request = (messages: Anthropic.MessageParam[]) => ({
      model: MODEL,
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools,
      messages,
    });
    const continuation = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
      { role: 'user', content: ASK },
      { role: 'assistant', content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: loose(content.at(-1)).id, content: 'sunny' },
          { type: 'text', text: 'so what' },
        ],
      },
    ];

    it.each([false, true])(
      'continues a tool call with its thinking sent back (streamed: %s)',
      async (stream) => {
        const events: Array<{ type: string; index?: number; delta?: { type: string } }> = [];
        const send = async (messages: Anthropic.MessageParam[]) => {
          if (!stream) return anthropic.messages.create(request(messages));
          const run = anthropic.messages.stream(request(messages));
          run.on('streamEvent', (event) => events.push(loose(event)));
          return run.finalMessage();
        };
        const first = await send([{ role: 'user', content: ASK }]);
        expect(first.content).toEqual([
          { type: 'thinking', thinking: THOUGHT, signature: expect.any(String) },
          expect.objectContaining({
            type: 'tool_use',
            name: 'get_weather',
            input: { text: 'weather Paris' },
          }),
        ]);
        expect(first.stop_reason).toBe('tool_use');
        expect(first.usage.output_tokens).toBe(9);
        if (stream) {
          const deltas = events
            .filter((event) => event.type === 'content_block_delta')
            .map((event) => [event.index, event.delta?.type]);
          expect(deltas).toEqual([
            ...Array(7).fill([0, 'thinking_delta']),
            [0, 'signature_delta'],
            [1, 'input_json_delta'],
          ]);
        }
        const second = await send(continuation(first.content));
        expect(second.content).toEqual([
          expect.objectContaining({ type: 'thinking', signature: expect.any(String) }),
          { type: 'text', text: 'so what' },
        ]);
      },
    );

    it("is refused by the provider, as Anthropic refuses it, when the turn's thinking is left out", async () => {
      const first = await anthropic.messages.create(request([{ role: 'user', content: ASK }]));
      const refused = await anthropic.messages
        .create(request(continuation(first.content.slice(1) as Anthropic.ContentBlockParam[])))
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect(loose(refused).error.error.message).toMatch(MISSING_THINKING);
    });
  });

  describe('chat completions, with the OpenAI SDK', () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
    ];
    const user: OpenAI.ChatCompletionMessageParam = { role: 'user', content: ASK };
    const continuation = (assistant: Record<string, unknown>): OpenAI.ChatCompletionMessageParam[] => [
      user,
      loose(assistant),
      { role: 'tool', tool_call_id: loose(assistant).tool_calls[0].id, content: 'sunny' },
      { role: 'user', content: 'so what' },
    ];

    /** One turn's assistant message: as returned, or put together from the streamed deltas as OpenRouter's clients do. */
    const turn = async (messages: OpenAI.ChatCompletionMessageParam[], stream: boolean) => {
      const body = { model: MODEL, reasoning_effort: 'low' as const, tools, messages };
      if (!stream) {
        const completion = await openai.chat.completions.create(body);
        return { message: loose(completion.choices[0].message), usage: completion.usage };
      }
      const chunks = await openai.chat.completions.create({ ...body, stream: true });
      const message: Record<string, any> = { role: 'assistant', content: '', reasoning: '', tool_calls: [] };
      const items: Record<number, Record<string, string>> = {};
      let usage: unknown;
      for await (const chunk of chunks) {
        usage = chunk.usage ?? usage;
        const delta = loose(chunk.choices[0]?.delta ?? {});
        message.content += delta.content ?? '';
        message.reasoning += delta.reasoning ?? '';
        for (const piece of delta.reasoning_details ?? []) {
          const item = (items[piece.index] ??= { type: piece.type, text: '', format: piece.format });
          item.text += piece.text ?? '';
          if (piece.signature) item.signature = piece.signature;
        }
        for (const call of delta.tool_calls ?? []) {
          const whole = (message.tool_calls[call.index] ??= {
            id: call.id,
            type: 'function',
            function: { name: '', arguments: '' },
          });
          whole.function.name += call.function?.name ?? '';
          whole.function.arguments += call.function?.arguments ?? '';
        }
      }
      message.reasoning_details = Object.values(items);
      if (message.tool_calls.length === 0) delete message.tool_calls;
      return { message, usage: loose(usage) };
    };

    it.each([false, true])(
      'continues a tool call with the reasoning_details sent back (streamed: %s)',
      async (stream) => {
        const first = await turn([user], stream);
        expect(first.message).toMatchObject({
          reasoning: THOUGHT,
          reasoning_details: [
            expect.objectContaining({
              type: 'reasoning.text',
              text: THOUGHT,
              signature: expect.any(String),
              format: 'anthropic-claude-v1',
            }),
          ],
          tool_calls: [
            expect.objectContaining({
              function: { name: 'get_weather', arguments: '{"text":"weather Paris"}' },
            }),
          ],
        });
        expect(first.usage).toMatchObject({ completion_tokens: 9 });
        const second = await turn(continuation(first.message), stream);
        expect(second.message).toMatchObject({
          content: 'so what',
          reasoning: expect.stringMatching(/^The answer/),
        });
      },
    );

    it('is refused by the provider when the assistant message comes back without its reasoning_details', async () => {
      const { message } = await turn([user], false);
      const { reasoning_details: _details, ...bare } = message;
      const refused = await turn(continuation(bare), false).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(loose(refused).error.message).toMatch(MISSING_THINKING);
    });

    it("bills an OpenAI-wire provider's reported reasoning tokens as reasoning", async () => {
      const completion = await openai.chat.completions.create({
        model: 'demo/chat@provider=Mock Alpha',
        reasoning_effort: 'low',
        messages: [{ role: 'user', content: 'weather Paris' }],
      });
      expect(loose(completion.choices[0].message).reasoning).toBe(THOUGHT);
      expect(completion.usage).toMatchObject({
        completion_tokens: 9,
        completion_tokens_details: { reasoning_tokens: 7 },
      });
    });
  });

  describe('Responses, with the OpenAI SDK', () => {
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: {} },
        strict: false,
      },
    ];
    /** A stateless client, as the SDK's users keep reasoning without storing responses. */
    const respond = async (input: OpenAI.Responses.ResponseInput, stream: boolean) => {
      const body = {
        model: MODEL,
        reasoning: { effort: 'low' as const },
        max_output_tokens: 2048,
        store: false,
        include: ['reasoning.encrypted_content' as const],
        tools,
        input,
      };
      if (!stream) return openai.responses.create(body);
      const events: string[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of await openai.responses.create({ ...body, stream: true })) {
        events.push(event.type);
        if (event.type === 'response.completed') completed = event.response;
      }
      expect(events).toContain('response.reasoning_text.delta');
      return completed as OpenAI.Responses.Response;
    };

    it.each([false, true])(
      'continues a function call with the reasoning item sent back (streamed: %s)',
      async (stream) => {
        const user = { role: 'user' as const, content: ASK };
        const first = await respond([user], stream);
        expect(loose(first.output)).toEqual([
          expect.objectContaining({
            type: 'reasoning',
            summary: [],
            content: [{ type: 'reasoning_text', text: THOUGHT }],
            signature: expect.any(String),
            format: 'anthropic-claude-v1',
          }),
          expect.objectContaining({ type: 'function_call', name: 'get_weather' }),
        ]);
        const call = loose(first.output[1]);
        const second = await respond(
          [
            user,
            ...loose(first.output),
            { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
            { role: 'user', content: 'so what' },
          ],
          stream,
        );
        expect(second.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
        // output_text is the SDK's own field of a plain answer: the message item says the same of both.
        expect(loose(second.output[1]).content).toEqual([expect.objectContaining({ text: 'so what' })]);
      },
    );
  });
}

describe('reasoning across the APIs (embedded app)', () => {
  let gateway: EmbeddedGateway;
  beforeAll(async () => {
    gateway = await startEmbeddedGateway('reasoning');
  }, 120_000);
  afterAll(() => gateway?.stop());

  reasoningConversations(() => ({ api: gateway.api, adminToken: gateway.adminToken }));
});

describe('reasoning across the APIs (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_reasoning',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
  });
  beforeAll(() => stack.start(), 120_000);
  afterAll(() => stack.stop());

  reasoningConversations(() => ({ api: stack.api, adminToken: ADMIN_TOKEN }));
});
