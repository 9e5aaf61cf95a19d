import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { DomainError, FormatsContracts, NamedServerSentEvent, Principal } from '@gw/contracts';
import type { FormatRequest, ResponsesResponse } from '@gw/contracts';
import { ResponsesRequestDto, ResponsesResponseDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { namedEvents } from '../generations/server-sent-events';
import type { GenerationRoute } from '../generations/serve-generation';
import { serveGeneration } from '../generations/serve-generation';
import { UndeliveredGenerations } from '../generations/undelivered-generations';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

/** The Responses API's own error event; its sequence continues the events already sent. */
export function responsesErrorEvent(error: DomainError, eventsSent: number): NamedServerSentEvent {
  return {
    event: 'error',
    data: {
      type: 'error',
      code: error.code,
      message: error.message,
      param: error.param,
      sequence_number: eventsSent,
    },
  };
}

const STREAM_EXAMPLE = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"gen-…","object":"response","status":"in_progress",…}}',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_…","output_index":0,"content_index":0,"delta":"Hello"}',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":9,"response":{…,"status":"completed","usage":{"input_tokens":6,"output_tokens":2,"total_tokens":8,"cost_rub":0.0021,"cost":0.0021}}}',
].join('\n\n');

const RESPONSES: GenerationRoute<FormatRequest, ResponsesResponse, NamedServerSentEvent> = {
  answer: FormatsContracts.responses,
  events: FormatsContracts.responsesStream,
  framing: namedEvents(responsesErrorEvent),
};

@ApiTags('chat')
@ApiExtraModels(ResponsesResponseDto)
@Controller()
export class ResponsesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly undelivered: UndeliveredGenerations,
  ) {}

  @Post('v1/responses')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Create a model response (OpenAI Responses API)',
    description:
      'The OpenAI Responses request and response shapes, run through the same routing, billing and history as chat completions (apiType `responses`). ' +
      'The model alias notation is accepted. With `stream: true` the answer is the native Responses event stream: response.created, response.in_progress, ' +
      'response.output_item.added, response.content_part.added, response.output_text.delta, response.output_text.done, response.content_part.done, ' +
      'response.output_item.done (function calls: response.function_call_arguments.delta/done), then response.completed (or response.incomplete) with usage; ' +
      'a failure after the first event is an `error` event.',
  })
  @ApiBody({
    type: ResponsesRequestDto,
    examples: {
      text: {
        summary: 'Plain text',
        value: {
          model: 'demo/chat',
          instructions: 'Answer briefly.',
          input: 'Say hello',
          max_output_tokens: 64,
        },
      },
      tools: {
        summary: 'Function tool',
        value: {
          model: 'demo/chat',
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Moscow?' }] }],
          tools: [
            {
              type: 'function',
              name: 'get_weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ],
          tool_choice: 'required',
        },
      },
      routed: {
        summary: 'Provider routing by alias',
        value: { model: 'demo/chat@provider=Mock Beta', input: 'Hello', stream: true },
      },
    },
  })
  @ApiOkResponse({
    description: 'The response object, or with stream true the Responses event stream',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ResponsesResponseDto) } },
      'text/event-stream': { schema: { type: 'string', example: STREAM_EXAMPLE } },
    },
  })
  @ApiPaidGenerationErrors('Invalid body, alias or unknown model')
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ResponsesRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    return serveGeneration(
      { rpc: this.rpc, undelivered: this.undelivered },
      response,
      RESPONSES,
      body.stream === true,
      (generationId) => ({
        principal,
        body,
        generationId,
      }),
    );
  }
}
