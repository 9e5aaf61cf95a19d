import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, MaxLength, ValidateBy } from 'class-validator';
import { HasNoNul } from '../common/text-rules';
import { isPositiveCreditAmount } from './decimal-amount';

export class AddCreditsDto {
  @ApiProperty({
    description: 'Roubles to add: a positive decimal string with at most 8 decimals',
    example: '100.00',
    pattern: '^\\d{1,12}(\\.\\d{1,8})?$',
  })
  @ValidateBy({
    name: 'isPositiveCreditAmount',
    validator: {
      validate: (value) => isPositiveCreditAmount(value),
      defaultMessage: () =>
        'amount must be a positive decimal string with at most 12 integer digits and 8 decimals, e.g. "100.00"',
    },
  })
  amount!: string;

  @ApiPropertyOptional({
    description: 'Free text kept in the ledger',
    example: 'Invoice 2026-11-001',
    maxLength: 500,
  })
  @IsOptional()
  @IsString()
  @HasNoNul()
  @MaxLength(500)
  reason?: string;
}

export class OrganizationCreditsParamsDto {
  @ApiProperty({ format: 'uuid', example: '3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01' })
  @IsUUID()
  orgId!: string;
}
