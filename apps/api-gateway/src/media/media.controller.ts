import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { MediaContracts, type MediaGeneration, type MediaOperation, type Principal } from '@gw/contracts';
import {
  CreateMediaGenerationDto,
  ErrorEnvelopeDto,
  MediaGenerationDto,
  MediaOperationRequestDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { GenerationWaiter } from './generation-waiter';
import { answerJson } from './json-answer';

/** The interface's asynchronous operation: it answers the new generation `pending` whatever `async` says. */
const ALWAYS_ASYNCHRONOUS: ReadonlySet<MediaOperation> = new Set(['extend']);

const GENERATION_ID_PARAM = {
  name: 'id',
  description: 'The generation id, as POST /v1/media or an operation answered it',
  example: 'gen-0b6c4f0e-2d1f-4f5e-9a57-1c0e3f9d2b11',
};

@ApiTags('media')
@Controller()
export class MediaController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly waiter: GenerationWaiter,
  ) {}

  @Post(['v1/media', 'v2/media'])
  @Authenticated()
  @ApiOperation({
    summary: 'Generate an image, a video or speech',
    description:
      "Creates a generation of an image, video or audio (TTS) model with `params` checked against the model's catalogue descriptors, and answers its Generation record: with `async: true` pending at once; otherwise once it is final or after the synchronous limit (120 s), as it then stands. A client that disconnects only stops the waiting: the generation goes on and is billed when it completes (poll GET /v1/media/{id}).",
  })
  // Swagger UI's "Try it out" starts from the first example, which answers 200 with the demo catalogue.
  @ApiBody({
    type: CreateMediaGenerationDto,
    examples: {
      image: {
        summary: 'An image, waited for',
        value: {
          model: 'demo/image',
          params: { prompt: 'A lighthouse at dawn, watercolour', size: '512x512' },
        },
      },
      video: {
        summary: 'A video, asynchronous',
        value: {
          model: 'demo/video',
          params: { prompt: 'Waves on a rocky shore', duration: 5, resolution: '720p' },
          async: true,
        },
      },
      speech: {
        summary: 'Speech',
        value: { model: 'demo/tts', params: { prompt: 'Hello from the gateway!', voice: 'nova' } },
      },
    },
  })
  @ApiOkResponse({ type: MediaGenerationDto })
  @ApiPaidGenerationErrors(
    "Invalid body, unknown or non-media model, or a parameter outside the model's descriptors (param names it, e.g. `params.duration`)",
  )
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateMediaGenerationDto,
    @Res() response: Response,
  ): Promise<void> {
    const asynchronous = body.async === true;
    const created = await this.rpc.request(MediaContracts.createGeneration, {
      principal,
      model: body.model,
      params: body.params,
      async: asynchronous,
      surface: 'media',
    });
    answerJson(response, asynchronous ? created : await this.waiter.untilFinal(principal, created, response));
  }

  @Get(['v1/media/:id', 'v2/media/:id'])
  @Authenticated()
  @ApiOperation({ summary: 'Status and result of a media generation (poll every 3 to 5 seconds)' })
  @ApiParam(GENERATION_ID_PARAM)
  @ApiOkResponse({ type: MediaGenerationDto })
  @ApiNotFoundResponse({ description: "Unknown id, or another organization's", type: ErrorEnvelopeDto })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<MediaGeneration> {
    return this.rpc.request(MediaContracts.getGeneration, { principal, id });
  }

  @Post('v1/media/:id/operations')
  @Authenticated()
  @ApiOperation({
    summary: 'Run a follow-up operation on a finished generation',
    description:
      '`extend` makes a NEW generation continuing the video (answered `pending` at once; the original is unchanged); `upscale_1080p` and `upscale_4k` answer `completed` with `data` an object with `url` within the synchronous limit, or with `async: true` the new pending record at once.',
  })
  @ApiParam(GENERATION_ID_PARAM)
  @ApiBody({
    type: MediaOperationRequestDto,
    examples: {
      upscale: { summary: 'Upscale to 1080p, waited for', value: { operation: 'upscale_1080p' } },
      extend: {
        summary: 'Extend a video',
        value: { operation: 'extend', params: { prompt: 'The camera rises above the clouds', duration: 5 } },
      },
      upscaleAsync: {
        summary: 'Upscale to 4K, asynchronous',
        value: { operation: 'upscale_4k', async: true },
      },
    },
  })
  @ApiOkResponse({ type: MediaGenerationDto, description: 'The NEW generation' })
  @ApiPaidGenerationErrors(
    'Invalid body, an operation the model does not list, or a parameter outside its descriptors (e.g. `params.duration` outside 3 to 10)',
  )
  @ApiNotFoundResponse({ description: "Unknown original, or another organization's", type: ErrorEnvelopeDto })
  @ApiConflictResponse({ description: 'The original has not completed', type: ErrorEnvelopeDto })
  async runOperation(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: MediaOperationRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    const asynchronous = body.async === true || ALWAYS_ASYNCHRONOUS.has(body.operation);
    const created = await this.rpc.request(MediaContracts.runOperation, {
      principal,
      id,
      operation: body.operation,
      params: body.params ?? {},
      async: asynchronous,
    });
    answerJson(response, asynchronous ? created : await this.waiter.untilFinal(principal, created, response));
  }

  @Post('v1/media/:id/cancel')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Cancel a pending or processing generation',
    description:
      "Ends it `cancelled` at no cost (history's isCancelled true); the provider's job is cancelled where its API allows.",
  })
  @ApiParam(GENERATION_ID_PARAM)
  @ApiOkResponse({
    type: MediaGenerationDto,
    description: 'The generation, `cancelled`; one that had already ended is answered as it stands',
  })
  @ApiNotFoundResponse({ description: "Unknown id, or another organization's", type: ErrorEnvelopeDto })
  cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<MediaGeneration> {
    return this.rpc.request(MediaContracts.cancelGeneration, { principal, id });
  }
}
