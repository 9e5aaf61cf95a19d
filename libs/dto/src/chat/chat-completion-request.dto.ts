import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Matches,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsMetadata, METADATA_SCHEMA } from '../common/metadata';
import { NestedObject, NestedObjectArray } from '../common/nested-object';
import { ChatMessageDto } from './chat-message.dto';
import { ProviderPreferencesDto } from './provider-preferences.dto';
import {
  IsAbsentWith,
  IsDeclaredToolChoice,
  IsLogitBias,
  IsPresent,
  IsStopSequences,
  IsToolChoice,
  MAX_STOP_SEQUENCES,
} from './chat-validators';

export const REASONING_EFFORTS = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export class StreamOptionsDto {
  @ApiPropertyOptional({
    example: true,
    description: 'Accepted for compatibility: the last chunk always carries usage',
  })
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

export class ResponseFormatDto {
  @ApiProperty({ enum: ['text', 'json_object', 'json_schema'], example: 'json_object' })
  @IsIn(['text', 'json_object', 'json_schema'])
  type!: 'text' | 'json_object' | 'json_schema';

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { name: 'answer', schema: { type: 'object' } },
  })
  @ValidateIf(
    (format: ResponseFormatDto) => format.type === 'json_schema' || format.json_schema !== undefined,
  )
  @IsObject()
  json_schema?: Record<string, unknown>;
}

export class FunctionDefinitionDto {
  @ApiProperty({ example: 'get_weather', pattern: '^[a-zA-Z0-9_-]{1,64}$' })
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{1,64}$/, {
    message: 'name must be 1 to 64 letters, digits, underscores or dashes',
  })
  name!: string;

  @ApiPropertyOptional({ example: 'Current weather in a city' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { city: { type: 'string' } } },
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

export class ToolDto {
  @ApiProperty({ enum: ['function'], example: 'function' })
  @IsIn(['function'])
  type!: 'function';

  @ApiProperty({ type: FunctionDefinitionDto })
  @IsDefined({ message: '$property is required' })
  @NestedObject(() => FunctionDefinitionDto)
  function!: FunctionDefinitionDto;
}

export class ReasoningDto {
  @ApiPropertyOptional({ enum: REASONING_EFFORTS, example: 'medium' })
  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  effort?: ReasoningEffort;

  @ApiPropertyOptional({ example: 1024 })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  exclude?: boolean;

  @ApiPropertyOptional({ example: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class WebSearchOptionsDto {
  @ApiPropertyOptional({ enum: ['low', 'medium', 'high'], example: 'medium' })
  @IsOptional()
  @IsIn(['low', 'medium', 'high'])
  search_context_size?: 'low' | 'medium' | 'high';

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'approximate', approximate: { country: 'RU' } },
  })
  @IsOptional()
  @IsObject()
  user_location?: Record<string, unknown>;
}

export class ChatCompletionRequestDto {
  @ApiProperty({
    example: 'demo/chat',
    description: 'Model id, optionally with an alias suffix (`demo/chat@provider=Mock Alpha`)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  model!: string;

  @ApiPropertyOptional({
    type: [ChatMessageDto],
    description: 'The conversation; exactly one of messages and prompt',
  })
  @ValidateIf((body: ChatCompletionRequestDto) => body.messages !== undefined || body.prompt === undefined)
  @IsPresent({ message: 'Exactly one of messages or prompt is required' })
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @NestedObjectArray(() => ChatMessageDto)
  messages?: ChatMessageDto[];

  @ApiPropertyOptional({ example: 'Say hello', description: 'Converted to a single user message' })
  @ValidateIf((body: ChatCompletionRequestDto) => body.prompt !== undefined)
  @IsString()
  @IsAbsentWith('messages')
  prompt?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 2, default: 1, example: 0.7 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 1, example: 256 })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @ApiPropertyOptional({ minimum: 1, example: 256, description: 'Alternative to max_tokens' })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_completion_tokens?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @ApiPropertyOptional({ minimum: -2, maximum: 2, example: 0 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  frequency_penalty?: number;

  @ApiPropertyOptional({ minimum: -2, maximum: 2, example: 0 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  presence_penalty?: number;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: MAX_STOP_SEQUENCES },
    ],
    example: ['\n\n'],
    description: `Where the model stops: one sequence or up to ${MAX_STOP_SEQUENCES}`,
  })
  @IsOptional()
  @IsStopSequences()
  stop?: string | string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1,
    default: 1,
    example: 1,
    description: 'Choices to generate; only 1 is supported',
  })
  @IsOptional()
  @IsInt()
  @Equals(1, { message: 'n must be 1' })
  n?: number;

  @ApiPropertyOptional({
    type: 'integer',
    example: 42,
    description: 'Asks the provider for a repeatable sample where it supports one',
  })
  @IsOptional()
  @IsInt()
  @Min(Number.MIN_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  seed?: number;

  @ApiPropertyOptional({ example: false, description: 'true answers with Server-Sent Events' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ type: StreamOptionsDto })
  @IsOptional()
  @NestedObject(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @ApiPropertyOptional({ type: ResponseFormatDto })
  @IsOptional()
  @NestedObject(() => ResponseFormatDto)
  response_format?: ResponseFormatDto;

  @ApiPropertyOptional({ type: [ToolDto] })
  @IsOptional()
  @ArrayMaxSize(128)
  @NestedObjectArray(() => ToolDto)
  tools?: ToolDto[];

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', enum: ['none', 'auto', 'required'] }, { type: 'object' }],
    example: 'auto',
  })
  @IsOptional()
  @IsToolChoice()
  @IsDeclaredToolChoice()
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

  @ApiPropertyOptional({ example: true, description: 'Whether the model may call several tools in one turn' })
  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    example: { '50256': -100 },
    description: 'Token ids mapped to a bias from -100 (never) to 100 (always)',
  })
  @IsOptional()
  @IsLogitBias()
  logit_bias?: Record<string, number>;

  @ApiPropertyOptional({ example: false, description: 'logprobs are not supported: true is refused' })
  @IsOptional()
  @IsBoolean()
  @Equals(false, { message: 'logprobs are not supported' })
  logprobs?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 20,
    example: 0,
    description: 'Only meaningful with logprobs, which are not supported; accepted and ignored',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  top_logprobs?: number;

  @ApiPropertyOptional({ type: ReasoningDto })
  @IsOptional()
  @NestedObject(() => ReasoningDto)
  reasoning?: ReasoningDto;

  @ApiPropertyOptional({
    enum: REASONING_EFFORTS,
    example: 'low',
    description: "OpenAI's top-level form of reasoning.effort (the two cannot both be set)",
  })
  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  reasoning_effort?: ReasoningEffort;

  @ApiPropertyOptional({ type: WebSearchOptionsDto })
  @IsOptional()
  @NestedObject(() => WebSearchOptionsDto)
  web_search_options?: WebSearchOptionsDto;

  @ApiPropertyOptional({ type: ProviderPreferencesDto })
  @IsOptional()
  @NestedObject(() => ProviderPreferencesDto)
  provider?: ProviderPreferencesDto;

  @ApiPropertyOptional({ example: 'user-42', description: 'End-user id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({
    ...METADATA_SCHEMA,
    example: { ticket: 'T-1' },
    description: 'Free labels of the request',
  })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    example: false,
    description: 'Accepted; completions are not stored for later retrieval (history keeps the generation)',
  })
  @IsOptional()
  @IsBoolean()
  store?: boolean;
}
