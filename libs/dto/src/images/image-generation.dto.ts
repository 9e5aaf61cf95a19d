import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IMAGE_RESPONSE_FORMATS } from '@gw/contracts';
import type { ImageGenerationResult, ImageResponseFormat } from '@gw/contracts';
import { MediaUsageDto } from '../media/media-generation.dto';

/** The interface's limits of image generation; a model's own (the older model's n 1 and 4000 characters) are its catalogue descriptors'. */
export const MAX_IMAGE_PROMPT_LENGTH = 32_000;
export const MAX_IMAGES_PER_REQUEST = 10;
export const IMAGE_SIZES = [
  'auto',
  '256x256',
  '512x512',
  '1024x1024',
  '1536x1024',
  '1024x1536',
  '1792x1024',
  '1024x1792',
] as const;
export const IMAGE_QUALITIES = ['auto', 'low', 'medium', 'high', 'standard', 'hd'] as const;
export const IMAGE_STYLES = ['vivid', 'natural'] as const;
export const IMAGE_OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export const IMAGE_BACKGROUNDS = ['transparent', 'opaque', 'auto'] as const;
/** As the images API's `user` becomes the result files' externalUserId, the storage filter's limit applies. */
export const MAX_IMAGE_USER_LENGTH = 128;

/** `POST /v2/images/generations` (and `/v1/images/generations`, what OpenAI clients call). */
export class ImageGenerationRequestDto {
  @ApiProperty({ example: 'demo/image', description: 'An image model of GET /v1/models' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  model!: string;

  @ApiProperty({
    example: 'A lighthouse at dawn, watercolour',
    maxLength: MAX_IMAGE_PROMPT_LENGTH,
    description: 'Up to 32000 characters for the newer image models, 4000 for the older style-capable model',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_IMAGE_PROMPT_LENGTH)
  prompt!: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_IMAGES_PER_REQUEST,
    default: 1,
    description: 'Only 1 for the older style-capable model',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_IMAGES_PER_REQUEST)
  n?: number;

  @ApiPropertyOptional({ enum: IMAGE_SIZES, default: 'auto' })
  @IsOptional()
  @IsIn(IMAGE_SIZES)
  size?: (typeof IMAGE_SIZES)[number];

  @ApiPropertyOptional({
    enum: IMAGE_QUALITIES,
    default: 'auto',
    description: '`auto`, `low`, `medium`, `high` for the newer models; `standard`, `hd` for the older one',
  })
  @IsOptional()
  @IsIn(IMAGE_QUALITIES)
  quality?: (typeof IMAGE_QUALITIES)[number];

  @ApiPropertyOptional({
    enum: IMAGE_RESPONSE_FORMATS,
    default: 'url',
    description: '`url`: stored files with expiring urls; `b64_json`: the bytes, base64-encoded',
  })
  @IsOptional()
  @IsIn(IMAGE_RESPONSE_FORMATS)
  response_format?: ImageResponseFormat;

  @ApiPropertyOptional({
    enum: IMAGE_STYLES,
    default: 'vivid',
    description: 'Only for the older style-capable model',
  })
  @IsOptional()
  @IsIn(IMAGE_STYLES)
  style?: (typeof IMAGE_STYLES)[number];

  @ApiPropertyOptional({ enum: IMAGE_OUTPUT_FORMATS, description: 'For the newer model family' })
  @IsOptional()
  @IsIn(IMAGE_OUTPUT_FORMATS)
  output_format?: (typeof IMAGE_OUTPUT_FORMATS)[number];

  @ApiPropertyOptional({ enum: IMAGE_BACKGROUNDS, description: 'For the newer model family' })
  @IsOptional()
  @IsIn(IMAGE_BACKGROUNDS)
  background?: (typeof IMAGE_BACKGROUNDS)[number];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: 'Percent, for jpeg and webp of the newer model family',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  output_compression?: number;

  @ApiPropertyOptional({
    example: 'user-42',
    maxLength: MAX_IMAGE_USER_LENGTH,
    description: 'End-user id; the result files are kept under it (the storage list filter externalUserId)',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_IMAGE_USER_LENGTH)
  user?: string;
}

export class ImageDataDto {
  @ApiPropertyOptional({
    description: 'With response_format url: the stored file, readable until it expires',
  })
  url?: string;
  @ApiPropertyOptional({ description: 'With response_format b64_json: the image bytes, base64-encoded' })
  b64_json?: string;
  @ApiPropertyOptional() revised_prompt?: string;
}

/** The interface's Image generation result. */
export class ImageGenerationResultDto implements ImageGenerationResult {
  @ApiProperty({ example: 1763830000 }) created!: number;
  @ApiProperty({ type: [ImageDataDto] }) data!: ImageDataDto[];
  @ApiPropertyOptional({
    type: MediaUsageDto,
    example: { input_tokens: 12, output_tokens: 0, total_tokens: 12, cost_rub: 4, cost: 4 },
  })
  usage?: MediaUsageDto;
}

/** What an image request answers when it is not finished within the synchronous limit: poll GET /v1/media/{id}. */
export class PendingGenerationDto {
  @ApiProperty({ example: 'gen-0b6c4f0e-2d1f-4f5e-9a57-1c0e3f9d2b11' }) id!: string;
  @ApiProperty({ enum: ['pending'], example: 'pending' }) status!: 'pending';
  @ApiProperty({ example: 'demo/image' }) model!: string;
  @ApiProperty({ example: 1763830000 }) created!: number;
}
