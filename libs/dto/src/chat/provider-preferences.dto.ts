import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsOptional,
  IsString,
} from 'class-validator';
import { NestedObject } from '../common/nested-object';
import { IsPriceLimit } from './chat-validators';

/**
 * Price ceilings in roubles per million tokens, compared with each provider's prompt_per_million
 * and completion_per_million; a provider above either ceiling is not used.
 */
export class MaxPriceDto {
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }],
    example: '100',
    description: 'RUB per million prompt tokens',
  })
  @IsOptional()
  @IsPriceLimit()
  prompt?: string | number;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }],
    example: '300',
    description: 'RUB per million completion tokens',
  })
  @IsOptional()
  @IsPriceLimit()
  completion?: string | number;
}

/** Gateway routing of a chat-style request; the same object on chat completions, responses and messages. */
export class ProviderPreferencesDto {
  @ApiPropertyOptional({ type: [String], example: ['Mock Alpha'], description: 'Use only these providers' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  only?: string[];

  @ApiPropertyOptional({ example: true, description: 'Try the next provider when one fails (default true)' })
  @IsOptional()
  @IsBoolean()
  allow_fallbacks?: boolean;

  @ApiPropertyOptional({
    type: [String],
    example: ['Mock Beta', 'Mock Alpha'],
    description: 'Try these first, in this order; the rest follow in catalogue order',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  order?: string[];

  @ApiPropertyOptional({ type: [String], example: ['Mock Broken'], description: 'Never use these providers' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  ignore?: string[];

  @ApiPropertyOptional({ type: MaxPriceDto })
  @IsOptional()
  @NestedObject(() => MaxPriceDto)
  max_price?: MaxPriceDto;
}
