import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsIn, IsOptional, IsString, IsUUID, Length, ValidateBy } from 'class-validator';
import {
  ApiKeyList,
  ApiKeySummary,
  CreatedApiKey,
  KeyLimits,
  SPENDING_LIMIT_PERIODS,
  SpendingLimit,
  SpendingLimitPeriod,
  Success,
} from '@gw/contracts';
import { isLimitAmount } from '../billing/decimal-amount';
import { NestedObjectArray } from '../common/nested-object';
import { HasNoNul, IsNotBlank } from '../common/text-rules';
import { API_KEY_NAME_MAX_LENGTH } from './auth.constants';

export class SpendingLimitDto implements SpendingLimit {
  @ApiProperty({
    enum: [...SPENDING_LIMIT_PERIODS],
    example: 'month',
    description:
      'day, week (Monday to Sunday) and month reset at UTC calendar boundaries; total never resets',
  })
  @IsIn([...SPENDING_LIMIT_PERIODS])
  period!: SpendingLimitPeriod;

  @ApiProperty({
    example: '500.00',
    description:
      'Roubles, a non-negative decimal string with at most 8 decimals; "0" stops the key from spending',
    pattern: '^\\d{1,12}(\\.\\d{1,8})?$',
  })
  @ValidateBy({
    name: 'isLimitAmount',
    validator: {
      validate: (value) => isLimitAmount(value),
      defaultMessage: () =>
        'amount must be a non-negative decimal string with at most 12 integer digits and 8 decimals, e.g. "10.00"',
    },
  })
  amount!: string;
}

export class SetApiKeyLimitsDto {
  @ApiProperty({
    type: [SpendingLimitDto],
    maxItems: SPENDING_LIMIT_PERIODS.length,
    description: 'At most one limit per period; replaces every limit of the key, an empty list removes them',
    example: [
      { period: 'day', amount: '10.00' },
      { period: 'month', amount: '200.00' },
    ],
  })
  @ArrayMaxSize(SPENDING_LIMIT_PERIODS.length)
  @NestedObjectArray(() => SpendingLimitDto)
  limits!: SpendingLimitDto[];
}

export class ApiKeyLimitsDto implements KeyLimits {
  @ApiProperty({ example: '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00', format: 'uuid' })
  apiKeyId!: string;

  @ApiProperty({
    type: [SpendingLimitDto],
    description: 'In period order day, week, month, total; amounts with 8 decimals',
    example: [{ period: 'day', amount: '10.00000000' }],
  })
  limits!: SpendingLimitDto[];
}

export class CreateApiKeyDto {
  @ApiProperty({ example: 'production backend', minLength: 1, maxLength: API_KEY_NAME_MAX_LENGTH })
  @IsString()
  @IsNotBlank()
  @HasNoNul()
  @Length(1, API_KEY_NAME_MAX_LENGTH)
  name!: string;

  @ApiPropertyOptional({
    type: [SpendingLimitDto],
    maxItems: SPENDING_LIMIT_PERIODS.length,
    description: 'Spending limits of the new key, at most one per period',
    example: [{ period: 'day', amount: '10.00' }],
  })
  @IsOptional()
  @ArrayMaxSize(SPENDING_LIMIT_PERIODS.length)
  @NestedObjectArray(() => SpendingLimitDto)
  limits?: SpendingLimitDto[];
}

export class AdminCreateApiKeyDto extends CreateApiKeyDto {
  @ApiPropertyOptional({
    example: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21',
    format: 'uuid',
    description: 'A member of the organization the key acts for',
  })
  @IsOptional()
  @IsUUID()
  userId?: string;
}

export class ApiKeyIdParamsDto {
  @ApiProperty({ example: '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00', format: 'uuid' })
  @IsUUID()
  id!: string;
}

/** The only answer that ever carries the key itself; it is not stored and cannot be shown again. */
export class CreatedApiKeyDto implements CreatedApiKey {
  @ApiProperty({ example: '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00', format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'sk-gw-3kTMd9vQ1pZ8xWc2LrN7bY5hJ0sFgA4eU6iKoP9qR2tZ8', description: 'Shown once' })
  key!: string;

  @ApiProperty({ example: 'production backend' })
  name!: string;

  @ApiProperty({ example: 'qR2tZ8', description: 'Last 6 characters of the key' })
  short!: string;
}

export class ApiKeyDto implements ApiKeySummary {
  @ApiProperty({ example: '8f14e45f-ceea-467f-a0e6-3b8d5c2a1f00', format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'production backend' })
  name!: string;

  @ApiProperty({ example: 'qR2tZ8', description: 'Last 6 characters of the key' })
  short!: string;

  @ApiProperty({ example: '2026-11-22T10:00:00.000Z', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-22T10:05:00.000Z', format: 'date-time' })
  lastUsedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '0b6c3c1e-6f0a-4b8e-9d43-3f1f0f8a9c21' })
  userId!: string | null;

  @ApiPropertyOptional({
    example: 'https://app.example.com My App',
    description: 'Application of an OAuth-issued key',
  })
  app?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['user:id', 'user:email'],
    description: 'Scopes of an OAuth-issued key',
  })
  scopes?: string[];

  @ApiPropertyOptional({
    type: SpendingLimitDto,
    description: 'The spending limit of the shortest period, when the key has any',
  })
  limit?: SpendingLimitDto;

  @ApiPropertyOptional({
    type: [SpendingLimitDto],
    description: 'Every spending limit of the key, in period order',
  })
  limits?: SpendingLimitDto[];
}

export class ApiKeyListDto implements ApiKeyList {
  @ApiProperty({ type: [ApiKeyDto] })
  data!: ApiKeyDto[];
}

export class SuccessDto implements Success {
  @ApiProperty({ example: true })
  success!: true;
}
