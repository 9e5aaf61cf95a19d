import { Body, Controller, HttpCode, Post, Res, UseFilters } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  DomainError,
  FormatsContracts,
  messagesErrorType,
  NamedServerSentEvent,
  Principal,
} from '@gw/contracts';
import type { FormatRequest, MessagesResponse } from '@gw/contracts';
import { MessagesRequestDto, MessagesResponseDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { namedEvents } from '../generations/server-sent-events';
import type { GenerationRoute } from '../generations/serve-generation';
import { serveGeneration } from '../generations/serve-generation';
import { UndeliveredGenerations } from '../generations/undelivered-generations';
import { MessagesErrorFilter } from './messages-error.filter';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

/** Anthropic's error event: `{type: 'error', error: {type, message}}`. */
export function messagesErrorEvent(error: DomainError): NamedServerSentEvent {
  return {
    event: 'error',
    data: { type: 'error', error: { type: messagesErrorType(error.code), message: error.message } },
  };
}

const STREAM_EXAMPLE = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"gen-…","type":"message","role":"assistant","model":"demo/chat","content":[],…}}',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":6,"output_tokens":1,"cost_rub":0.002,"cost":0.002}}',
  'event: message_stop\ndata: {"type":"message_stop"}',
].join('\n\n');

const MESSAGES: GenerationRoute<FormatRequest, MessagesResponse, NamedServerSentEvent> = {
  answer: FormatsContracts.messages,
  events: FormatsContracts.messagesStream,
  framing: namedEvents(messagesErrorEvent),
};

@ApiTags('chat')
@ApiExtraModels(MessagesResponseDto)
@Controller()
export class MessagesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly undelivered: UndeliveredGenerations,
  ) {}

  @Post('v1/messages')
  @HttpCode(200)
  @UseFilters(MessagesErrorFilter)
  @Authenticated()
  @ApiHeader({
    name: 'x-api-key',
    required: false,
    description: 'The API key, as Anthropic clients send it; an alternative to Authorization: Bearer',
  })
  @ApiHeader({ name: 'anthropic-version', required: false, description: 'Accepted and ignored' })
  @ApiOperation({
    summary: 'Create a message (Anthropic Messages API)',
    description:
      'The Anthropic Messages request and response shapes, run through the same routing, billing and history as chat completions (apiType `messages`); ' +
      'any model works, whichever wire its provider speaks. The model alias notation is accepted. `top_k` is accepted and not passed on; `stop_sequences` end the answer. ' +
      'With `stream: true` the answer is the native event stream: message_start, content_block_start, content_block_delta (text_delta, input_json_delta), ' +
      'content_block_stop, message_delta (stop_reason, usage with cost), message_stop; a failure after message_start is an `error` event.',
  })
  @ApiBody({
    type: MessagesRequestDto,
    examples: {
      text: {
        summary: 'Plain text',
        value: {
          model: 'demo/chat',
          max_tokens: 256,
          system: 'Answer briefly.',
          messages: [{ role: 'user', content: 'Say hello' }],
        },
      },
      tools: {
        summary: 'Tool use',
        value: {
          model: 'demo/chat',
          max_tokens: 256,
          messages: [{ role: 'user', content: 'Weather in Moscow?' }],
          tools: [
            {
              name: 'get_weather',
              input_schema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
          tool_choice: { type: 'any' },
        },
      },
      routed: {
        summary: 'Provider routing by alias',
        value: {
          model: 'demo/chat@provider=Mock Alpha',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'Hello' }],
          stream: true,
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'The message, or with stream true the Messages event stream',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(MessagesResponseDto) } },
      'text/event-stream': { schema: { type: 'string', example: STREAM_EXAMPLE } },
    },
  })
  @ApiPaidGenerationErrors('Invalid body, alias or unknown model')
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: MessagesRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    return serveGeneration(
      { rpc: this.rpc, undelivered: this.undelivered },
      response,
      MESSAGES,
      body.stream === true,
      (generationId) => ({
        principal,
        body,
        generationId,
      }),
    );
  }
}
