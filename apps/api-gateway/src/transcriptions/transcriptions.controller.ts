import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Principal, TranscriptionContracts } from '@gw/contracts';
import {
  ErrorEnvelopeDto,
  TranscriptionJsonRequestDto,
  TranscriptionParamsDto,
  TranscriptionResultDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Request, Response } from 'express';
import { newGenerationId } from '../generations/generation-cancellation';
import { requestGeneration } from '../generations/serve-generation';
import { UndeliveredGenerations } from '../generations/undelivered-generations';
import { RequestBodyLimit } from '../http/request-body-limit.decorator';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { type AudioForm, AudioStagingService } from './audio-staging.service';
import { TranscriptionInputService } from './transcription-input.service';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

/** A JSON body: 25 MB of audio as a base64 data URL (about 33.4 MB), plus the rest of its fields. */
const JSON_BODY_LIMIT_BYTES = 40 * 1024 * 1024;

@ApiTags('audio')
@ApiExtraModels(TranscriptionJsonRequestDto, TranscriptionParamsDto, TranscriptionResultDto)
@Controller()
export class TranscriptionsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly input: TranscriptionInputService,
    private readonly staging: AudioStagingService,
    private readonly undelivered: UndeliveredGenerations,
  ) {}

  @Post('v1/audio/transcriptions')
  @HttpCode(200)
  @Authenticated()
  @RequestBodyLimit(JSON_BODY_LIMIT_BYTES)
  @ApiOperation({
    summary: 'Transcribe audio',
    description:
      'multipart/form-data with the audio as `file` (array fields as `name[0]`), or JSON with `file` a base64 data URL or an http(s) URL. MP3, WAV, M4A, FLAC, OGG, WebM by content; at most 25 MB. json, verbose_json and diarized_json answer a Transcription result; text, srt and vtt answer text/plain, application/x-subrip and text/vtt.',
  })
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({
    schema: {
      oneOf: [
        {
          allOf: [
            { $ref: getSchemaPath(TranscriptionParamsDto) },
            {
              type: 'object',
              required: ['file'],
              properties: { file: { type: 'string', format: 'binary' } },
            },
          ],
        },
        { $ref: getSchemaPath(TranscriptionJsonRequestDto) },
      ],
    },
  })
  @ApiOkResponse({
    description: 'The transcription in the requested response_format',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(TranscriptionResultDto) } },
      'text/plain': { schema: { type: 'string' } },
      'application/x-subrip': { schema: { type: 'string' } },
      'text/vtt': { schema: { type: 'string' } },
    },
  })
  @ApiPaidGenerationErrors('Invalid field, unsupported audio or a refused file URL')
  @ApiPayloadTooLargeResponse({ description: 'The audio is larger than 25 MB', type: ErrorEnvelopeDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: Record<string, unknown> | undefined,
    @Req() http: Request,
    @Res() response: Response,
  ): Promise<void> {
    // Read here, after the guards: nothing is uploaded without credentials.
    const form: AudioForm | null = http.is('multipart/form-data') ? await this.staging.readForm(http) : null;
    let staged = form?.audio;
    try {
      const request = await this.input.build(
        principal,
        form?.fields ?? body ?? {},
        staged,
        newGenerationId(),
      );
      staged = request.audio;
      const reply = await requestGeneration(
        { rpc: this.rpc, undelivered: this.undelivered },
        response,
        TranscriptionContracts.transcribe,
        request,
        // Built from form fields and a staged file, not from a DTO's body: the service validates it.
        { fromValidatedBody: false },
      );
      if (reply.contentType === 'application/json') {
        response.status(200).json(reply.result);
        return;
      }
      response.status(200).type(`${reply.contentType}; charset=utf-8`).send(reply.body);
    } finally {
      await this.staging.discard(staged);
    }
  }
}
