import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ChatCompletionRequestDto } from './chat/chat-completion-request.dto';
import { firstValidationProblem, type ValidationProblem } from './common/validation-problem';
import { MessagesRequestDto } from './messages/messages-request.dto';
import { ResponsesRequestDto } from './responses/responses-request.dto';

/** Reasoning sent back in each API's own form: chat's reasoning_details, Messages' thinking blocks, Responses' reasoning items. */
function firstProblem(dto: new () => object, body: Record<string, unknown>): ValidationProblem | null {
  return firstValidationProblem(
    validateSync(plainToInstance(dto, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

const SIGNATURE = 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....';
const chat = (assistant: Record<string, unknown>) => ({
  model: 'demo/chat',
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello', ...assistant },
  ],
});
const messages = (blocks: unknown[]) => ({
  model: 'demo/chat',
  max_tokens: 64,
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: blocks },
  ],
});
const responses = (item: Record<string, unknown>) => ({ model: 'demo/chat', input: [item] });

describe('reasoning sent back', () => {
  it.each<[string, new () => object, Record<string, unknown>]>([
    [
      "chat: an assistant's reasoning and its items of every type",
      ChatCompletionRequestDto,
      chat({
        reasoning: 'Let me think.',
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: 'Let me think.',
            signature: SIGNATURE,
            format: 'anthropic-claude-v1',
            index: 0,
          },
          { type: 'reasoning.encrypted', data: 'EmwK', id: null, format: 'anthropic-claude-v1', index: 1 },
          { type: 'reasoning.summary', summary: 'Thinking.', id: 'rs_1', format: 'openai-responses-v1' },
        ],
      }),
    ],
    ['chat: a null reasoning', ChatCompletionRequestDto, chat({ reasoning: null, reasoning_details: [] })],
    [
      'messages: signed thinking and redacted thinking',
      MessagesRequestDto,
      messages([
        { type: 'thinking', thinking: 'Let me think.', signature: SIGNATURE },
        { type: 'redacted_thinking', data: 'EmwK' },
        { type: 'text', text: 'hello' },
      ]),
    ],
    [
      "responses: OpenAI's reasoning item",
      ResponsesRequestDto,
      responses({
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: '**Greeting**' }],
        encrypted_content: 'gAAAAB',
        status: 'completed',
      }),
    ],
    [
      'responses: include asking for the encrypted content, as a stateless client does',
      ResponsesRequestDto,
      {
        ...responses({ role: 'user', content: 'hi' }),
        store: false,
        include: ['reasoning.encrypted_content'],
      },
    ],
    [
      "responses: the gateway's item of signed thinking",
      ResponsesRequestDto,
      responses({
        type: 'reasoning',
        id: 'rs_1',
        summary: [],
        content: [{ type: 'reasoning_text', text: 'Let me think.' }],
        signature: SIGNATURE,
        format: 'anthropic-claude-v1',
      }),
    ],
  ])('accepts %s', (_label, dto, body) => {
    expect(firstProblem(dto, body)).toBeNull();
  });

  // The param is the path the message names, down to the offending field.
  it.each<[string, new () => object, Record<string, unknown>, string]>([
    [
      'chat: reasoning_details that are not a list',
      ChatCompletionRequestDto,
      chat({ reasoning_details: { type: 'reasoning.text' } }),
      'messages[1].reasoning_details must be an array',
    ],
    [
      'chat: an item of no known type',
      ChatCompletionRequestDto,
      chat({ reasoning_details: [{ type: 'thinking', thinking: 'x' }] }),
      'messages[1].reasoning_details[0].type must be one of reasoning.text, reasoning.encrypted, reasoning.summary',
    ],
    [
      'chat: encrypted reasoning without its data',
      ChatCompletionRequestDto,
      chat({ reasoning_details: [{ type: 'reasoning.encrypted' }] }),
      'messages[1].reasoning_details[0].data must be a string',
    ],
    [
      'chat: a signature that is not a string',
      ChatCompletionRequestDto,
      chat({ reasoning_details: [{ type: 'reasoning.text', text: 'x', signature: 7 }] }),
      'messages[1].reasoning_details[0].signature must be a string',
    ],
    [
      'messages: thinking without its signature',
      MessagesRequestDto,
      messages([{ type: 'thinking', thinking: 'x' }]),
      'messages[1].content[0].signature must be a string',
    ],
    [
      'messages: redacted thinking without its data',
      MessagesRequestDto,
      messages([{ type: 'redacted_thinking' }]),
      'messages[1].content[0].data must be a string',
    ],
    [
      'responses: a reasoning item without summary',
      ResponsesRequestDto,
      responses({ type: 'reasoning', id: 'rs_1' }),
      'input[0].summary must be an array',
    ],
    [
      'responses: reasoning content of another type',
      ResponsesRequestDto,
      responses({ type: 'reasoning', summary: [], content: [{ type: 'output_text', text: 'x' }] }),
      'input[0].content[0] must be {"type": "reasoning_text", "text": ...}',
    ],
  ])('refuses %s', (_label, dto, body, message) => {
    expect(firstProblem(dto, body)).toEqual({ param: message.split(' must')[0], message });
  });
});
