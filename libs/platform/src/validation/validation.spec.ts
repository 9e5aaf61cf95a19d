import { type ArgumentMetadata } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import {
  ChatCompletionRequestDto,
  CreateOrganizationDto,
  CreateUserDto,
  HistoryQueryDto,
  ListStoredFilesQueryDto,
  MessagesRequestDto,
  ResponsesRequestDto,
} from '@gw/dto';
import { createValidationPipe } from './validation';

type Input = { type: ArgumentMetadata['type']; metatype: new () => object; value: unknown };

const chat = (body: Record<string, unknown>): Input => ({
  type: 'body',
  metatype: ChatCompletionRequestDto,
  value: body,
});
const query = (metatype: new () => object, value: Record<string, unknown>): Input => ({
  type: 'query',
  metatype,
  value,
});
const messages = { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] };

/** What the pipe throws for an input, as the error envelope will show it. */
async function refusal({
  type,
  metatype,
  value,
}: Input): Promise<{ code: string; status: number; message: string; param: string | null }> {
  try {
    await createValidationPipe().transform(value, { type, metatype });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, status: error.status, message: error.message, param: error.param };
  }
  throw new Error('the input passed validation');
}

describe('createValidationPipe', () => {
  it.each<[string, Input, string, string]>([
    ['an empty chat body', chat({}), 'model', 'model is required'],
    [
      'a string temperature',
      chat({ ...messages, temperature: '1' }),
      'temperature',
      'temperature must be a number conforming to the specified constraints',
    ],
    [
      'a string max_tokens',
      chat({ ...messages, max_tokens: '5' }),
      'max_tokens',
      'max_tokens must be an integer number',
    ],
    [
      'an object for messages',
      chat({ model: 'demo/chat', messages: {} }),
      'messages',
      'messages must be an array',
    ],
    [
      'a null messages beside a prompt',
      chat({ model: 'demo/chat', prompt: 'hi', messages: null }),
      'messages',
      'messages must be an array',
    ],
    [
      'provider as an array',
      chat({ ...messages, provider: [{ only: ['Mock Beta'] }] }),
      'provider',
      'provider must be an object',
    ],
    [
      'max_price as an array',
      chat({ ...messages, provider: { max_price: [{ prompt: 1 }] } }),
      'provider.max_price',
      'provider.max_price must be an object',
    ],
    [
      'a message that is an array',
      chat({ model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }, []] }),
      'messages[1]',
      'messages[1] must be an object',
    ],
    [
      'a content part of an unknown type',
      chat({ model: 'demo/chat', messages: [{ role: 'user', content: [{ type: 'audio' }] }] }),
      'messages[0].content[0].type',
      'messages[0].content[0].type must be one of text, image_url',
    ],
    ['n other than 1', chat({ ...messages, n: 3 }), 'n', 'n must be 1'],
    [
      'a Messages message that is an array',
      {
        type: 'body',
        metatype: MessagesRequestDto,
        value: { model: 'demo/chat', max_tokens: 8, messages: [[]] },
      },
      'messages[0]',
      'messages[0] must be an object',
    ],
    [
      'a Responses text.format that is an array',
      {
        type: 'body',
        metatype: ResponsesRequestDto,
        value: { model: 'demo/chat', input: 'hi', text: { format: [] } },
      },
      'text.format',
      'text.format must be an object',
    ],
    [
      'a limit that is no number',
      query(HistoryQueryDto, { limit: 'abc' }),
      'limit',
      'limit must be an integer number',
    ],
    [
      'a repeated limit',
      query(HistoryQueryDto, { limit: ['1', '2'] }),
      'limit',
      'limit must be an integer number',
    ],
    [
      'a repeated page',
      query(ListStoredFilesQueryDto, { page: ['1', '2'] }),
      'page',
      'page must be an integer number',
    ],
    [
      'a page past any real list',
      query(HistoryQueryDto, { page: '99999999999999999999' }),
      'page',
      'page must not be greater than 10000000',
    ],
    [
      'a page whose offset overflows bigint',
      query(ListStoredFilesQueryDto, { page: '461168601842738790', limit: '100' }),
      'page',
      'page must not be greater than 10000000',
    ],
    [
      'an email that is a number',
      {
        type: 'body',
        metatype: CreateUserDto,
        value: { email: 123, password: 'correct horse', name: 'Ada' },
      },
      'email',
      'email must be a string',
    ],
    [
      'a blank organization name',
      { type: 'body', metatype: CreateOrganizationDto, value: { name: '   ' } },
      'name',
      'name must contain a non-space character',
    ],
  ])('refuses %s with a 400 naming the real fault', async (_label, input, param, message) => {
    expect(await refusal(input)).toEqual({ code: 'invalid_request', status: 400, param, message });
  });

  it('passes a valid body through as an instance of its class', async () => {
    const body = await createValidationPipe().transform(
      { ...messages, stop: 'END', n: 1 },
      { type: 'body', metatype: ChatCompletionRequestDto },
    );
    expect(body).toBeInstanceOf(ChatCompletionRequestDto);
  });
});
