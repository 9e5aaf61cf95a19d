import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '@gw/contracts';
import { InferenceContracts, Principal } from '@gw/contracts';
import { ChatCompletionChunkDto, ChatCompletionDto, ChatCompletionRequestDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { DATA_EVENTS } from '../generations/server-sent-events';
import type { GenerationRoute } from '../generations/serve-generation';
import { serveGeneration } from '../generations/serve-generation';
import { UndeliveredGenerations } from '../generations/undelivered-generations';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

const CHAT_COMPLETIONS: GenerationRoute<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
  answer: InferenceContracts.chatCompletion,
  events: InferenceContracts.chatCompletionStream,
  framing: DATA_EVENTS,
};

@ApiTags('chat')
@ApiExtraModels(ChatCompletionDto, ChatCompletionChunkDto)
@Controller()
export class ChatCompletionsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly undelivered: UndeliveredGenerations,
  ) {}

  @Post(['v1/chat/completions', 'v2/chat/completions'])
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Create a chat completion',
    description:
      'Sends a conversation and returns a completion. With `stream: true` the answer is Server-Sent Events: one `data: <chat.completion.chunk>` per increment, the last chunk carrying usage with cost_rub, then `data: [DONE]`. A stream the provider breaks off after output ends with a chunk of usage alone (what was produced is charged) and an error event, without `[DONE]`.',
  })
  // Swagger UI's "Try it out" starts from the first example; without one it builds a body of every property's example.
  @ApiBody({
    type: ChatCompletionRequestDto,
    examples: {
      messages: {
        summary: 'A conversation',
        value: { model: 'demo/chat', messages: [{ role: 'user', content: 'Hello, gateway!' }] },
      },
      stream: {
        summary: 'Streamed',
        value: { model: 'demo/chat', messages: [{ role: 'user', content: 'Hello, gateway!' }], stream: true },
      },
      prompt: {
        summary: 'A prompt instead of messages, with a token limit',
        value: { model: 'demo/chat', prompt: 'Say hello', max_tokens: 64, temperature: 0.2 },
      },
      routed: {
        summary: 'Provider routing by alias',
        value: {
          model: 'demo/chat@provider=Mock Beta&allow_fallbacks=false',
          messages: [{ role: 'user', content: 'Hello' }],
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'The completion, or with stream true an event stream of ChatCompletionChunkDto',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChatCompletionDto) } },
      'text/event-stream': {
        schema: {
          type: 'string',
          example: 'data: {"object":"chat.completion.chunk",...}\n\ndata: [DONE]\n\n',
        },
      },
    },
  })
  @ApiPaidGenerationErrors('Invalid body or unknown model')
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChatCompletionRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    return serveGeneration(
      { rpc: this.rpc, undelivered: this.undelivered },
      response,
      CHAT_COMPLETIONS,
      body.stream === true,
      (generationId) => ({
        principal,
        body,
        apiType: 'chat_completions',
        generationId,
      }),
    );
  }
}
