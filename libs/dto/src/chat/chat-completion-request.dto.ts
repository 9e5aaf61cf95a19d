import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
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
  ValidateNested,
} from 'class-validator';
import { IsAbsentWith, IsChatContent, IsDeclaredToolChoice, IsPriceLimit, IsToolChoice } from './chat-validators';

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];
export const REASONING_EFFORTS = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: string };

export class ChatToolCallFunctionDto {
  @ApiProperty({ example: 'get_weather' })
  @IsString()
  name!: string;

  @ApiProperty({ example: '{"city":"Moscow"}', description: 'JSON-encoded arguments' })
  @IsString()
  arguments!: string;
}

export class ChatToolCallDto {
  @ApiProperty({ example: 'call_abc123' })
  @IsString()
  id!: string;

  @ApiProperty({ example: 'function', enum: ['function'] })
  @IsIn(['function'])
  type!: 'function';

  @ApiProperty({ type: ChatToolCallFunctionDto })
  @ValidateNested()
  @Type(() => ChatToolCallFunctionDto)
  function!: ChatToolCallFunctionDto;
}

export class ChatMessageDto {
  @ApiProperty({ enum: CHAT_ROLES, example: 'user' })
  @IsIn(CHAT_ROLES)
  role!: ChatRole;

  @ApiPropertyOptional({
    description: 'A string, an array of content parts ({type: text, text} or {type: image_url, image_url: {url}}), or null for an assistant message with tool_calls',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    nullable: true,
    example: 'Hello!',
  })
  @ValidateIf((message: ChatMessageDto) => !isToolCallingAssistant(message) || (message.content !== null && message.content !== undefined))
  @IsDefined({ message: 'content is required (it may be null only for an assistant message with tool_calls)' })
  @IsChatContent()
  content?: string | ChatContentPart[] | null;

  @ApiPropertyOptional({ example: 'alice' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string;

  @ApiPropertyOptional({ description: 'Required when role is tool', example: 'call_abc123' })
  @ValidateIf((message: ChatMessageDto) => message.role === 'tool' || message.tool_call_id !== undefined)
  @IsString({ message: 'tool_call_id is required for a tool message' })
  tool_call_id?: string;

  @ApiPropertyOptional({ type: [ChatToolCallDto] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatToolCallDto)
  tool_calls?: ChatToolCallDto[];
}

function isToolCallingAssistant(message: ChatMessageDto): boolean {
  return message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}

export class StreamOptionsDto {
  @ApiPropertyOptional({ example: true, description: 'Accepted for compatibility: the last chunk always carries usage' })
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

export class ResponseFormatDto {
  @ApiProperty({ enum: ['text', 'json_object', 'json_schema'], example: 'json_object' })
  @IsIn(['text', 'json_object', 'json_schema'])
  type!: 'text' | 'json_object' | 'json_schema';

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { name: 'answer', schema: { type: 'object' } } })
  @ValidateIf((format: ResponseFormatDto) => format.type === 'json_schema' || format.json_schema !== undefined)
  @IsObject()
  json_schema?: Record<string, unknown>;
}

export class FunctionDefinitionDto {
  @ApiProperty({ example: 'get_weather', pattern: '^[a-zA-Z0-9_-]{1,64}$' })
  @IsString()
  @Matches(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'name must be 1 to 64 letters, digits, underscores or dashes' })
  name!: string;

  @ApiPropertyOptional({ example: 'Current weather in a city' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { type: 'object', properties: { city: { type: 'string' } } } })
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
  @ValidateNested()
  @Type(() => FunctionDefinitionDto)
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

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { type: 'approximate', approximate: { country: 'RU' } } })
  @IsOptional()
  @IsObject()
  user_location?: Record<string, unknown>;
}

/**
 * Price ceilings in roubles per million tokens, compared with each provider's prompt_per_million
 * and completion_per_million; a provider above either ceiling is not used.
 */
export class MaxPriceDto {
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }], example: '100', description: 'RUB per million prompt tokens' })
  @IsOptional()
  @IsPriceLimit()
  prompt?: string | number;

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }], example: '300', description: 'RUB per million completion tokens' })
  @IsOptional()
  @IsPriceLimit()
  completion?: string | number;
}

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

  @ApiPropertyOptional({ type: [String], example: ['Mock Beta', 'Mock Alpha'], description: 'Try these first, in this order; the rest follow in catalogue order' })
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
  @ValidateNested()
  @Type(() => MaxPriceDto)
  max_price?: MaxPriceDto;
}

export class ChatCompletionRequestDto {
  @ApiProperty({ example: 'demo/chat', description: 'Model id, optionally with an alias suffix (`demo/chat@provider=Mock Alpha`)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  model!: string;

  @ApiPropertyOptional({ type: [ChatMessageDto], description: 'The conversation; exactly one of messages and prompt' })
  @ValidateIf((body: ChatCompletionRequestDto) => body.messages !== undefined || body.prompt === undefined)
  @IsDefined({ message: 'Exactly one of messages or prompt is required' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
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

  @ApiPropertyOptional({ example: false, description: 'true answers with Server-Sent Events' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ type: StreamOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @ApiPropertyOptional({ type: ResponseFormatDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ResponseFormatDto)
  response_format?: ResponseFormatDto;

  @ApiPropertyOptional({ type: [ToolDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(128)
  @ValidateNested({ each: true })
  @Type(() => ToolDto)
  tools?: ToolDto[];

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', enum: ['none', 'auto', 'required'] }, { type: 'object' }],
    example: 'auto',
  })
  @IsOptional()
  @IsToolChoice()
  @IsDeclaredToolChoice()
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

  @ApiPropertyOptional({ type: ReasoningDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ReasoningDto)
  reasoning?: ReasoningDto;

  @ApiPropertyOptional({ type: WebSearchOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => WebSearchOptionsDto)
  web_search_options?: WebSearchOptionsDto;

  @ApiPropertyOptional({ type: ProviderPreferencesDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProviderPreferencesDto)
  provider?: ProviderPreferencesDto;

  @ApiPropertyOptional({ example: 'user-42', description: 'End-user id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}
