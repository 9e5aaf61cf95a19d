import { Body, Controller, HttpCode, Logger, Post, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { InferenceContracts, Principal } from '@gw/contracts';
import { ChatCompletionChunkDto, ChatCompletionDto, ChatCompletionRequestDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { relayServerSentEvents } from './sse-writer';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

/** A completion may take minutes; the NATS call must outlast the service's own upstream timeout. */
const CHAT_RPC_TIMEOUT_MS = 600_000;

@ApiTags('chat')
@ApiExtraModels(ChatCompletionChunkDto)
@Controller()
export class ChatCompletionsController {
  private readonly logger = new Logger('ChatCompletions');

  constructor(private readonly rpc: RpcClient) {}

  @Post(['v1/chat/completions', 'v2/chat/completions'])
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Create a chat completion',
    description:
      'Sends a conversation and returns a completion. With `stream: true` the answer is Server-Sent Events: one `data: <chat.completion.chunk>` per increment, the last chunk carrying usage with cost_rub, then `data: [DONE]`.',
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
    type: ChatCompletionDto,
  })
  @ApiPaidGenerationErrors('Invalid body or unknown model')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChatCompletionRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    // Chosen here so that a client leaving before the first chunk can still be cancelled by id.
    const generationId = `gen-${randomUUID()}`;
    const message = { principal, body, apiType: 'chat_completions', generationId };
    const cancel = () => this.cancel(generationId);
    if (body.stream === true) {
      const chunks = this.rpc.stream(InferenceContracts.chatCompletionStream, message, {
        idleTimeoutMs: CHAT_RPC_TIMEOUT_MS,
      });
      return relayServerSentEvents(chunks, response, cancel);
    }
    response.on('close', () => {
      if (!response.writableEnded) cancel();
    });
    const completion = await this.rpc.request(InferenceContracts.chatCompletion, message, {
      timeoutMs: CHAT_RPC_TIMEOUT_MS,
    });
    if (!response.writableEnded && !response.destroyed) response.status(200).json(completion);
  }

  /**
   * Over NATS an abandoned reply does not reach the service, so every inference replica is told;
   * the one running the generation aborts its upstream call and bills what was produced.
   */
  private cancel(generationId: string): void {
    this.rpc.broadcast(InferenceContracts.cancelGeneration, { generationId }).catch((err: unknown) => {
      this.logger.warn(`Cancellation of ${generationId} was not broadcast: ${(err as Error).message}`);
    });
  }
}
