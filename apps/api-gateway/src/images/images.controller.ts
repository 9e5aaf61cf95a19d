import { Body, Controller, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { MediaContracts, type Principal } from '@gw/contracts';
import { ImageGenerationRequestDto, ImageGenerationResultDto, PendingGenerationDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { ApiAwaitedGenerationErrors } from '../docs/awaited-generation-errors.decorator';
import { generationFailure } from '../media/generation-failure';
import { GenerationWaiter, isFinal } from '../media/generation-waiter';
import { answerJson } from '../media/json-answer';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { imageGenerationRequest, pendingRecord } from './image-request';

/** Ten base64 images read from storage: longer than a plain call, and past NATS's limit by claim check. */
const IMAGE_RESULT_TIMEOUT_MS = 60_000;

@ApiTags('images')
@ApiExtraModels(ImageGenerationResultDto, PendingGenerationDto)
@Controller()
export class ImagesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly waiter: GenerationWaiter,
  ) {}

  @Post(['v2/images/generations', 'v1/images/generations'])
  @Authenticated()
  @ApiOperation({
    summary: 'Generate images (OpenAI-compatible)',
    description:
      "OpenAI's images API: a client configured with the `/v1` base path calls `/v1/images/generations`, the same route. Waits up to the synchronous limit (120 s): then the Image generation result, or, when not finished, the pending record `{id, status: 'pending', model, created}` whose id GET /v1/media/{id} completes. A failed generation answers the error envelope with the status its error calls for (502 provider failure, 504 provider timeout, 400 refusal) and costs nothing.",
  })
  @ApiBody({
    type: ImageGenerationRequestDto,
    examples: {
      url: {
        summary: 'One image, as a url',
        value: { model: 'demo/image', prompt: 'A lighthouse at dawn, watercolour', size: '1024x1024' },
      },
      b64: {
        summary: 'Two small WEBP images, base64',
        value: {
          model: 'demo/image',
          prompt: 'A red fox in the snow',
          n: 2,
          size: '256x256',
          quality: 'low',
          output_format: 'webp',
          output_compression: 80,
          response_format: 'b64_json',
        },
      },
      classic: {
        summary: 'The older style-capable model',
        value: {
          model: 'demo/image-classic',
          prompt: 'A city skyline at night',
          quality: 'hd',
          style: 'natural',
          size: '1024x1024',
        },
      },
    },
  })
  @ApiOkResponse({
    description:
      'The Image generation result, or the pending record when not finished within the synchronous limit',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(ImageGenerationResultDto) },
        { $ref: getSchemaPath(PendingGenerationDto) },
      ],
    },
  })
  @ApiAwaitedGenerationErrors(
    'Invalid field, unknown or non-image model, or a value the model does not take (the older model: n 1, prompt 4000 characters; style only there)',
  )
  async generate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ImageGenerationRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    const created = await this.rpc.request(
      MediaContracts.createGeneration,
      imageGenerationRequest(principal, body),
    );
    const generation = await this.waiter.untilFinal(principal, created, response);
    if (response.destroyed) return;
    if (!isFinal(generation)) return answerJson(response, pendingRecord(generation));
    if (generation.status !== 'completed') throw generationFailure(generation);
    const result = await this.rpc.request(
      MediaContracts.imageResult,
      { principal, id: generation.id, responseFormat: body.response_format ?? 'url' },
      { timeoutMs: IMAGE_RESULT_TIMEOUT_MS },
    );
    answerJson(response, result);
  }
}
