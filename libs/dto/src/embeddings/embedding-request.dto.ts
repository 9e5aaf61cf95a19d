import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  registerDecorator,
  ValidationOptions,
} from 'class-validator';
import { EmbeddingRequest } from '@gw/contracts';
import type { EmbeddingBody, EmbeddingEncodingFormat } from '@gw/contracts';
import { NestedObject } from '../common/nested-object';

export const EMBEDDING_ENCODING_FORMATS = ['float', 'base64'] as const;
/** As OpenAI: at most 2048 texts per request. */
export const MAX_EMBEDDING_INPUTS = 2048;

/** A non-empty string, or a non-empty array (at most MAX_EMBEDDING_INPUTS) of non-empty strings. Token arrays are not taken. */
export function IsEmbeddingInput(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isEmbeddingInput',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be a non-empty string or an array of 1 to ${MAX_EMBEDDING_INPUTS} non-empty strings`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'string' && value.length > 0) ||
          (Array.isArray(value) &&
            value.length > 0 &&
            value.length <= MAX_EMBEDDING_INPUTS &&
            value.every((item) => typeof item === 'string' && item.length > 0)),
      },
    });
}

/** `POST /v1/embeddings`. */
export class EmbeddingRequestDto implements EmbeddingBody {
  @ApiProperty({ example: 'demo/embed-large' })
  @IsString()
  @IsNotEmpty()
  model!: string;

  @ApiProperty({
    oneOf: [
      { type: 'string' },
      { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_EMBEDDING_INPUTS },
    ],
    example: ['first text', 'second text'],
    description: 'Text or texts to embed; one data item per text, in order',
  })
  @IsEmbeddingInput()
  input!: string | string[];

  @ApiPropertyOptional({
    enum: EMBEDDING_ENCODING_FORMATS,
    default: 'float',
    description: 'base64: little-endian float32 bytes, base64-encoded',
  })
  @IsOptional()
  @IsIn(EMBEDDING_ENCODING_FORMATS)
  encoding_format?: EmbeddingEncodingFormat;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 256,
    description: "At most the model's maximum; only for models that take it",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  dimensions?: number;

  @ApiPropertyOptional({ example: 'user-42', description: 'End-user id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}

/** The contract's message with its body checked by the public API's rules, as the service validates it. */
export class EmbeddingRpcMessageDto extends EmbeddingRequest {
  @NestedObject(() => EmbeddingRequestDto)
  override body!: EmbeddingRequestDto;
}
