import { ApiProperty } from '@nestjs/swagger';
import type { EmbeddingList, EmbeddingUsage } from '@gw/contracts';

export class EmbeddingItemDto {
  @ApiProperty({ enum: ['embedding'], example: 'embedding' })
  object!: 'embedding';

  @ApiProperty({
    oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
    example: [0.0123, -0.0456],
    description:
      'Numbers with encoding_format float; with base64 the little-endian float32 bytes, base64-encoded',
  })
  embedding!: number[] | string;

  @ApiProperty({ type: 'integer', example: 0, description: 'Position of the input this embeds' })
  index!: number;
}

export class EmbeddingUsageDto implements EmbeddingUsage {
  @ApiProperty({ example: 8 })
  prompt_tokens!: number;

  @ApiProperty({ example: 8 })
  total_tokens!: number;

  @ApiProperty({ example: 0.000104, description: 'Roubles, rounded to 8 places' })
  cost_rub!: number;

  @ApiProperty({ example: 0.000104, description: 'The same as cost_rub' })
  cost!: number;
}

/** The "Embedding list" of the interface. */
export class EmbeddingListDto implements EmbeddingList {
  @ApiProperty({ example: 'gen-6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f' })
  id!: string;

  @ApiProperty({ enum: ['list'], example: 'list' })
  object!: 'list';

  @ApiProperty({ type: [EmbeddingItemDto] })
  data!: EmbeddingItemDto[];

  @ApiProperty({ example: 'demo/embed-large' })
  model!: string;

  @ApiProperty({ type: EmbeddingUsageDto })
  usage!: EmbeddingUsageDto;
}
