import { ApiProperty } from '@nestjs/swagger';

export class ErrorBodyDto {
  @ApiProperty({ example: 'Invalid API key' })
  message!: string;

  @ApiProperty({ example: 'authentication_error' })
  type!: string;

  @ApiProperty({ example: 'invalid_api_key' })
  code!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  param!: string | null;
}

/** The error body of every endpoint (DESIGN.md §5.1). */
export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto })
  error!: ErrorBodyDto;
}
