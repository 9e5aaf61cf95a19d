import { Body, Controller, Inject, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DomainError, MediaContracts, type MediaGeneration, type Principal } from '@gw/contracts';
import { SpeechRequestDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { BLOB_STORE, type BlobStore } from '@gw/platform/blobs';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiAwaitedGenerationErrors } from '../docs/awaited-generation-errors.decorator';
import { generationFailure } from '../media/generation-failure';
import { GenerationWaiter, isFinal } from '../media/generation-waiter';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { inSpeechTerms, speechGenerationRequest } from './speech-request';

@ApiTags('audio')
@Controller()
export class SpeechController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly waiter: GenerationWaiter,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Post('v1/audio/speech')
  @Authenticated()
  @ApiOperation({
    summary: 'Text to speech (OpenAI-compatible)',
    description:
      "OpenAI's speech API on a TTS model: `input` is the model's `prompt`, `response_format` its `output_format`; billed like POST /v1/media (per million characters). Answers the audio bytes. Not finished within the synchronous limit (120 s): the generation is cancelled at no cost and the answer is 504. A failed generation answers the error envelope and costs nothing.",
  })
  @ApiBody({
    type: SpeechRequestDto,
    examples: {
      mp3: { summary: 'MP3', value: { model: 'demo/tts', input: 'Hello from the gateway!', voice: 'alloy' } },
      wav: {
        summary: 'WAV, faster',
        value: {
          model: 'demo/tts',
          input: 'Hello again.',
          voice: 'nova',
          response_format: 'wav',
          speed: 1.25,
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'The audio, typed by its format',
    content: {
      'audio/mpeg': { schema: { type: 'string', format: 'binary' } },
      'audio/wav': { schema: { type: 'string', format: 'binary' } },
      'audio/ogg': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiAwaitedGenerationErrors(
    'Invalid field, unknown or non-speech model, or a value the model does not take (param names the field: `input`, `voice`, `response_format`, `speed`)',
  )
  async speak(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SpeechRequestDto,
    @Res() response: Response,
  ): Promise<void> {
    const created = await this.rpc
      .request(MediaContracts.createGeneration, speechGenerationRequest(principal, body))
      .catch((err: unknown) => Promise.reject(inSpeechTerms(err)));
    const waited = await this.waiter.untilFinal(principal, created, response);
    if (response.destroyed) return;
    const generation = isFinal(waited) ? waited : await this.cancelUnfinished(principal, waited);
    if (generation.status !== 'completed') throw generationFailure(generation);
    await this.sendAudio(principal, generation, response);
  }

  /**
   * A client of this API expects bytes, not a record to poll, and would only try again: a speech
   * not finished in time is cancelled (it costs nothing) and answered 504. One that finished in the
   * meantime is answered after all.
   */
  private async cancelUnfinished(
    principal: Principal,
    generation: MediaGeneration,
  ): Promise<MediaGeneration> {
    const id = generation.id;
    const cancelled = await this.rpc
      .request(MediaContracts.cancelGeneration, { principal, id })
      .catch(async (err: unknown) => {
        if (err instanceof DomainError && err.code === 'conflict')
          return this.rpc.request(MediaContracts.getGeneration, { principal, id });
        throw err;
      });
    if (cancelled.status === 'cancelled')
      throw new DomainError(
        'upstream_timeout',
        `Speech generation ${id} did not finish within the synchronous limit; it was cancelled and costs nothing`,
      );
    return cancelled;
  }

  private async sendAudio(
    principal: Principal,
    generation: MediaGeneration,
    response: Response,
  ): Promise<void> {
    const { files } = await this.rpc.request(MediaContracts.generationFiles, {
      principal,
      id: generation.id,
    });
    const file = files[0];
    const object = file ? await this.blobs.get(file.objectKey) : null;
    if (!file || !object)
      throw new DomainError('not_found', `The audio of generation ${generation.id} is no longer stored`);
    response.status(200);
    response.setHeader('Content-Type', file.contentType);
    response.setHeader('Content-Length', String(object.size));
    await pipeline(object.body, response);
  }
}
