import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { GENERATION_STATUSES } from '@gw/contracts';

export class MediaGenerationErrorDto {
  @ApiProperty({ example: 'BAD_GATEWAY' }) code!: string;
  @ApiProperty({ example: 'The provider failed' }) message!: string;
}

/** The Generation record of the interface. */
export class MediaGenerationDto {
  @ApiProperty({ example: 'gen-0b6c4f0e-2d1f-4f5e-9a57-1c0e3f9d2b11' }) id!: string;
  @ApiProperty({ enum: ['media.generation'], example: 'media.generation' }) object!: 'media.generation';
  @ApiProperty({ enum: GENERATION_STATUSES }) status!: string;
  @ApiProperty({ example: 1763830000 }) created!: number;
  @ApiProperty({ example: 'demo/video' }) model!: string;
  @ApiPropertyOptional({ example: 1763830042 }) completed_at?: number;
  @ApiPropertyOptional({ description: 'Generated content; for a finished upscale an object with a url' })
  data?: unknown;
  @ApiPropertyOptional({ example: { duration_seconds: 5, cost_rub: 12.5, cost: 12.5 } }) usage?: Record<
    string,
    number
  >;
  @ApiPropertyOptional({ type: MediaGenerationErrorDto }) error?: MediaGenerationErrorDto;
  @ApiPropertyOptional() content?: string;
  @ApiPropertyOptional() reasoning_summary?: string;
  @ApiPropertyOptional({ type: [String] }) warnings?: string[];
}
