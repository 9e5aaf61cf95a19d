import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Min,
} from 'class-validator';
import type { PriceValue, Pricing, PricingTier } from '@gw/pricing';
import { NestedObject, NestedObjectArray } from '../common/nested-object';
import { IsCountOrNull, IsNumberOrNull, IsParameterDescriptors, IsPriceValue } from './pricing-validators';

const PRICE_SCHEMA = { oneOf: [{ type: 'string' }, { type: 'object' }] };

export class PricingTierDto implements PricingTier {
  @ApiProperty({ type: [String], example: ['resolution=1080p'] })
  @IsArray()
  @Matches(/^[^=]+=.+$/, { each: true, message: 'tier conditions must have the form <parameter>=<value>' })
  conditions!: string[];

  @ApiProperty({ example: '25.00' })
  @IsPriceValue()
  cost_rub!: string;
}

/**
 * Per-unit prices in `currency`, each a decimal string or `{}` where the unit does not apply; a
 * catalogue writes every one of them, so the list shows every key and no price is absent by mistake.
 * The shape is libs/pricing's; its spec holds the properties to PRICING_KEYS.
 */
export class PricingDto implements Pricing {
  @ApiProperty({ example: 'RUB' })
  @IsString()
  currency!: string;

  @ApiProperty({ ...PRICE_SCHEMA, example: '150.00' })
  @IsPriceValue()
  prompt_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: '600.00' })
  @IsPriceValue()
  completion_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  request_per_thousand!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  image_input_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  image_output_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  audio_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  web_search_per_thousand!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  internal_reasoning_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  input_cache_read_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  input_cache_write_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  input_audio_cache_per_million!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  stt_per_minute!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  tts_per_million_characters!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  video_per_second!: PriceValue;

  @ApiProperty({ ...PRICE_SCHEMA, example: {} })
  @IsPriceValue()
  per_request!: PriceValue;

  @ApiProperty({ type: [PricingTierDto] })
  @NestedObjectArray(() => PricingTierDto)
  tiers!: PricingTierDto[];

  @ApiProperty({
    example: 'duration',
    description:
      'What one priced unit counts: a numeric request parameter whose value is the number of units (`duration` seconds, `n` images) or `request` ' +
      '(one unit per request) for image and video models and operations; `tokens` for chat and embedding models, `duration` (seconds of audio) ' +
      'for transcription models, `characters` for text to speech',
  })
  @IsString()
  @IsNotEmpty()
  unitParam!: string;
}

export class ArchitectureDto {
  @ApiProperty({ type: [String], example: ['text', 'image'] })
  @IsArray()
  @IsString({ each: true })
  input_modalities!: string[];

  @ApiProperty({ type: [String], example: ['text'] })
  @IsArray()
  @IsString({ each: true })
  output_modalities!: string[];

  @ApiProperty({ example: 'text+image->text' })
  @Matches(/^.+->.+$/, { message: 'modality must have the form <inputs>-><outputs>' })
  modality!: string;

  @ApiProperty({ example: 'mock' })
  @IsString()
  tokenizer!: string;

  @ApiProperty({ example: 'none' })
  @IsString()
  instruct_type!: string;
}

/** A provider's defaults for the sampling parameters; null where it has none (a model that does not sample). */
export class DefaultParametersDto {
  @ApiProperty({ type: Number, nullable: true, example: 1 })
  @IsNumberOrNull()
  temperature!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 1 })
  @IsNumberOrNull()
  top_p!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 0 })
  @IsNumberOrNull()
  frequency_penalty!: number | null;
}

/** The most one request may send and ask for at a provider; null where that limit does not apply. */
export class PerRequestLimitsDto {
  @ApiProperty({ type: Number, nullable: true, example: 128000 })
  @IsCountOrNull()
  prompt_tokens!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 16384 })
  @IsCountOrNull()
  completion_tokens!: number | null;
}

/** How a request parameter of a model is described; a catalogue maps parameter names to these. */
export class ParameterDescriptorDto {
  @ApiPropertyOptional({ example: true })
  required?: boolean;

  @ApiPropertyOptional({ example: 'What to generate' })
  description?: string;

  @ApiPropertyOptional({ example: 32000 })
  max_length?: number;

  @ApiPropertyOptional({ example: 3 })
  min?: number;

  @ApiPropertyOptional({ example: 10 })
  max?: number;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    example: '16:9',
    description: 'The value used when a request leaves the parameter out',
  })
  default?: unknown;

  @ApiPropertyOptional({ type: [String], example: ['16:9', '9:16'] })
  values?: string[];
}

/** The schema of a parameter map: a name → descriptor object, with the descriptor registered as a component. */
const PARAMETERS_SCHEMA = {
  type: 'object',
  additionalProperties: { $ref: getSchemaPath(ParameterDescriptorDto) },
} as const;

/** A provider descriptor as `top_provider` shows it. */
@ApiExtraModels(ParameterDescriptorDto)
export class ProviderDescriptorDto {
  @ApiProperty({ example: false })
  @IsBoolean()
  is_moderated!: boolean;

  @ApiProperty({ type: PricingDto })
  @NestedObject(() => PricingDto)
  pricing!: PricingDto;

  @ApiProperty({ type: Number, nullable: true, example: 128000 })
  @IsCountOrNull()
  context_length!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 16384 })
  @IsCountOrNull()
  max_completion_tokens!: number | null;

  @ApiProperty({
    type: [String],
    example: ['temperature', 'top_p', 'max_tokens', 'tools', 'response_format'],
  })
  @IsArray()
  @IsString({ each: true })
  supported_parameters!: string[];

  @ApiProperty({ type: DefaultParametersDto })
  @NestedObject(() => DefaultParametersDto)
  default_parameters!: DefaultParametersDto;

  @ApiProperty({ type: PerRequestLimitsDto })
  @NestedObject(() => PerRequestLimitsDto)
  per_request_limits!: PerRequestLimitsDto;

  @ApiProperty({
    ...PARAMETERS_SCHEMA,
    example: {},
    description: "The provider's own parameter descriptors; {} when it has none",
  })
  @IsParameterDescriptors()
  parameters!: Record<string, ParameterDescriptorDto>;
}

/** An element of `providers`: a descriptor plus the provider's name. */
export class ModelProviderDto extends ProviderDescriptorDto {
  @ApiProperty({ example: 'Mock Alpha' })
  @IsString()
  @IsNotEmpty()
  name!: string;
}

@ApiExtraModels(ParameterDescriptorDto)
export class ModelOperationDto {
  @ApiProperty({ example: 'extend' })
  @IsString()
  @IsNotEmpty()
  id!: string;

  @ApiProperty({ example: 'Extend video' })
  @IsString()
  name!: string;

  @ApiProperty({ example: true })
  @IsBoolean()
  async!: boolean;

  @ApiProperty({ example: 'Continues the video by 3 to 10 seconds' })
  @IsString()
  description!: string;

  @ApiProperty({ type: PricingDto })
  @NestedObject(() => PricingDto)
  pricing!: PricingDto;

  @ApiProperty(PARAMETERS_SCHEMA)
  @IsParameterDescriptors()
  parameters!: Record<string, ParameterDescriptorDto>;
}

export const MODEL_TYPES = ['chat', 'embedding', 'transcription', 'image', 'video', 'audio'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/** The endpoint paths a model can be served on; a catalogue naming any other is refused at start. */
export const MODEL_ENDPOINTS = [
  '/v1/chat/completions',
  '/v2/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/embeddings',
  '/v1/audio/transcriptions',
  '/v1/media',
  '/v2/media',
  '/v2/images/generations',
] as const;

/** One element of `GET /v1/models`. */
@ApiExtraModels(ParameterDescriptorDto)
export class ModelCatalogueEntryDto {
  @ApiProperty({ example: 'demo/chat' })
  @IsString()
  @Matches(/^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._:-]*$/i, {
    message: 'id must have the form <vendor>/<model> without @',
  })
  id!: string;

  @ApiProperty({ example: 'Demo Chat' })
  @IsString()
  @IsNotEmpty()
  name!: string;

  @ApiProperty({ example: 'chat', enum: MODEL_TYPES })
  @IsIn(MODEL_TYPES)
  type!: ModelType;

  @ApiProperty({ example: 1767225600 })
  @IsInt()
  @Min(0)
  created!: number;

  @ApiProperty({ type: ArchitectureDto })
  @NestedObject(() => ArchitectureDto)
  architecture!: ArchitectureDto;

  @ApiProperty({
    type: ProviderDescriptorDto,
    description: 'The preferred provider (the first of providers)',
  })
  top_provider!: ProviderDescriptorDto;

  @ApiProperty({ type: [String], example: ['/v1/chat/completions'] })
  @IsArray()
  @IsIn(MODEL_ENDPOINTS, {
    each: true,
    message: `endpoints must each be one of ${MODEL_ENDPOINTS.join(', ')}`,
  })
  endpoints!: string[];

  @ApiProperty({ example: 'A deterministic echo model for the demo' })
  @IsString()
  short_description!: string;

  @ApiProperty({ type: [ModelProviderDto] })
  @ArrayMinSize(1)
  @NestedObjectArray(() => ModelProviderDto)
  providers!: ModelProviderDto[];

  @ApiProperty({ ...PARAMETERS_SCHEMA, example: {} })
  @IsParameterDescriptors()
  parameters!: Record<string, ParameterDescriptorDto>;

  @ApiProperty({ type: [ModelOperationDto] })
  @NestedObjectArray(() => ModelOperationDto)
  operations!: ModelOperationDto[];
}

export class ModelListDto {
  @ApiProperty({ type: [ModelCatalogueEntryDto] })
  data!: ModelCatalogueEntryDto[];
}

/** Query of `GET /v1/models`: both filters are optional and combine; an unknown value is a 400 naming it. */
export class ModelListQueryDto {
  @ApiPropertyOptional({ enum: MODEL_TYPES, description: 'Only models of this type' })
  @IsOptional()
  @IsIn(MODEL_TYPES)
  type?: ModelType;

  @ApiPropertyOptional({ enum: MODEL_ENDPOINTS, description: 'Only models served on this endpoint path' })
  @IsOptional()
  @IsIn(MODEL_ENDPOINTS)
  endpoint?: string;
}
