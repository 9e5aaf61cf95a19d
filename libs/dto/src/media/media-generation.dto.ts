import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { GENERATION_STATUSES } from '@gw/contracts';
import type { MediaGeneration, MediaResultFile, MediaUsage } from '@gw/contracts';

export class MediaGenerationErrorDto {
  @ApiProperty({ example: 'BAD_GATEWAY' }) code!: string;
  @ApiProperty({ example: 'The provider failed' }) message!: string;
}

/** The interface's Usage object; `cost` equals `cost_rub` (roubles, rounded to 8 places). */
export class MediaUsageDto implements MediaUsage {
  @ApiPropertyOptional({ example: 1 }) input_units?: number;
  @ApiPropertyOptional({ example: 1 }) output_units?: number;
  @ApiPropertyOptional({ example: 5 }) duration_seconds?: number;
  @ApiPropertyOptional({ example: 12 }) input_tokens?: number;
  @ApiPropertyOptional({ example: 0 }) output_tokens?: number;
  @ApiPropertyOptional({ example: 12 }) total_tokens?: number;
  @ApiPropertyOptional({ example: 50 }) cost_rub?: number;
  @ApiPropertyOptional({ example: 50 }) cost?: number;
}

/** One stored result file: its `url` reads it without credentials until it expires. */
export class MediaResultFileDto implements MediaResultFile {
  @ApiProperty({ example: 'https://files.example.com/0b6c…/5f1d…?signature=…' }) url!: string;
  @ApiProperty({ example: '5f1d8a52-3c9e-4a71-b2d4-0e6f9a1c7b30' }) file_id!: string;
  @ApiProperty({ example: 'video/mp4' }) content_type!: string;
  @ApiPropertyOptional({ description: 'Images: the prompt as the model rewrote it' }) revised_prompt?: string;
}

/** The Generation record of the interface. */
@ApiExtraModels(MediaResultFileDto)
export class MediaGenerationDto implements MediaGeneration {
  @ApiProperty({ example: 'gen-0b6c4f0e-2d1f-4f5e-9a57-1c0e3f9d2b11' }) id!: string;
  @ApiProperty({ enum: ['media.generation'], example: 'media.generation' }) object!: 'media.generation';
  @ApiProperty({ enum: GENERATION_STATUSES, example: 'completed' }) status!: MediaGeneration['status'];
  @ApiProperty({ example: 1763830000 }) created!: number;
  @ApiProperty({
    example: 'demo/video',
    description: 'On a freshly created asynchronous follow-up generation it can be the placeholder `pending`',
  })
  model!: string;
  @ApiPropertyOptional({ example: 1763830042 }) completed_at?: number;
  @ApiPropertyOptional({
    description:
      'The result files once completed: an array for images, one file (an object with `url`) for video, audio and upscales',
    oneOf: [
      { type: 'array', items: { $ref: getSchemaPath(MediaResultFileDto) } },
      { $ref: getSchemaPath(MediaResultFileDto) },
    ],
  })
  data?: MediaResultFileDto[] | MediaResultFileDto;
  @ApiPropertyOptional({ type: MediaUsageDto }) usage?: MediaUsageDto;
  @ApiPropertyOptional({ type: MediaGenerationErrorDto, description: 'Present when status is `failed`' })
  error?: MediaGenerationErrorDto;
  @ApiPropertyOptional({ description: 'Text the model returned instead of or together with an image' })
  content?: string;
  @ApiPropertyOptional() reasoning_summary?: string;
  @ApiPropertyOptional({
    type: [String],
    example: ['Parameter style is not supported by demo/image and was ignored'],
  })
  warnings?: string[];
}
