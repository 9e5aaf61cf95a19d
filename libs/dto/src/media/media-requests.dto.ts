import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { MEDIA_OPERATIONS } from '@gw/contracts';
import type { MediaOperation } from '@gw/contracts';

const ASYNC_DESCRIPTION =
  'false (default) waits for the result up to the synchronous limit (120 s), then answers the record as it stands; true answers the pending record at once. Poll GET /v1/media/{id} every 3 to 5 seconds.';

/** `POST /v1/media` (and `/v2/media`): `params` is checked against the model's parameter descriptors by the media service. */
export class CreateMediaGenerationDto {
  @ApiProperty({
    example: 'demo/image',
    description: 'An image, video or audio (TTS) model of GET /v1/models',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { prompt: 'A lighthouse at dawn, watercolour', size: '512x512' },
    description:
      "The model's parameters as `parameters` of its GET /v1/models entry describes them (required, min/max, max_length, values; defaults applied). A parameter the model does not take is dropped and named in `warnings`.",
  })
  @IsObject()
  params!: Record<string, unknown>;

  @ApiPropertyOptional({ default: false, description: ASYNC_DESCRIPTION })
  @IsOptional()
  @IsBoolean()
  async?: boolean;
}

/** `POST /v1/media/{id}/operations`. */
export class MediaOperationRequestDto {
  @ApiProperty({
    enum: MEDIA_OPERATIONS,
    example: 'upscale_1080p',
    description:
      '`extend` continues a video as a NEW generation (always answered `pending` at once; the original is unchanged); `upscale_1080p` and `upscale_4k` are synchronous. Only operations the model lists in `operations` of its catalogue entry.',
  })
  @IsIn(MEDIA_OPERATIONS)
  operation!: MediaOperation;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { prompt: 'The camera rises above the clouds', duration: 5 },
    description:
      '`extend`: `prompt` (required), `seeds` (number), `duration` (3 to 10 seconds). Upscales take none.',
  })
  @IsOptional()
  @IsObject()
  params?: Record<string, unknown>;

  @ApiPropertyOptional({ default: false, description: ASYNC_DESCRIPTION })
  @IsOptional()
  @IsBoolean()
  async?: boolean;
}
