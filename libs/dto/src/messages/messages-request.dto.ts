import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
  Matches,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { FormatRequest } from '@gw/contracts';
import { IsDeclaredTool, TOOL_NAME } from '../responses/responses-validators';
import { ProviderPreferencesDto } from '../chat/provider-preferences.dto';
import { NestedObject, NestedObjectArray } from '../common/nested-object';
import {
  IsMessagesContent,
  IsMessagesSystem,
  MessagesInputBlock,
  MessagesTextBlock,
} from './messages-validators';

export class MessagesMessageDto {
  @ApiProperty({ enum: ['user', 'assistant'], example: 'user' })
  @IsIn(['user', 'assistant'])
  role!: 'user' | 'assistant';

  @ApiProperty({
    description:
      'A string or content blocks: text, image (base64 or url source), tool_use, thinking and redacted_thinking as returned (assistant), tool_result (user)',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: 'Hello!',
  })
  @IsDefined({ message: 'content is required' })
  @IsMessagesContent()
  content!: string | MessagesInputBlock[];
}

export class MessagesToolDto {
  @ApiPropertyOptional({ enum: ['custom'], description: 'Only client tools are supported' })
  @IsOptional()
  @IsIn(['custom'])
  type?: 'custom';

  @ApiProperty({ example: 'get_weather', pattern: TOOL_NAME.source })
  @IsString()
  @Matches(TOOL_NAME, { message: 'name must be 1 to 64 letters, digits, underscores or dashes' })
  name!: string;

  @ApiPropertyOptional({ example: 'Current weather in a city' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  @IsObject()
  input_schema!: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Accepted; prompt caching is up to the provider',
  })
  @IsOptional()
  @IsObject()
  cache_control?: Record<string, unknown>;
}

export const MESSAGES_TOOL_CHOICES = ['auto', 'any', 'tool', 'none'] as const;

export class MessagesToolChoiceDto {
  @ApiProperty({ enum: MESSAGES_TOOL_CHOICES, example: 'auto' })
  @IsIn(MESSAGES_TOOL_CHOICES)
  type!: (typeof MESSAGES_TOOL_CHOICES)[number];

  @ApiPropertyOptional({ example: 'get_weather', description: 'Required when type is tool' })
  @ValidateIf((choice: MessagesToolChoiceDto) => choice.type === 'tool' || choice.name !== undefined)
  @IsString()
  @IsNotEmpty()
  name?: string;

  @ApiPropertyOptional({
    example: false,
    description: 'Accepted; the model decides whether calls run in parallel',
  })
  @IsOptional()
  @IsBoolean()
  disable_parallel_tool_use?: boolean;
}

export class MessagesThinkingDto {
  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'enabled' })
  @IsIn(['enabled', 'disabled'])
  type!: 'enabled' | 'disabled';

  @ApiPropertyOptional({
    minimum: 1024,
    example: 2048,
    description: 'Required when enabled; becomes reasoning.max_tokens',
  })
  @ValidateIf(
    (thinking: MessagesThinkingDto) => thinking.type === 'enabled' || thinking.budget_tokens !== undefined,
  )
  @IsInt()
  @Min(1024)
  budget_tokens?: number;
}

export class MessagesMetadataDto {
  @ApiPropertyOptional({ example: 'user-42', description: 'Becomes the end-user id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user_id?: string;
}

/** `POST /v1/messages`: the Anthropic Messages request, run through the gateway's chat pipeline. */
export class MessagesRequestDto {
  @ApiProperty({
    example: 'demo/chat',
    description: 'Model id, optionally with an alias suffix (`demo/chat@provider=Mock Beta`)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  model!: string;

  @ApiProperty({ type: [MessagesMessageDto], example: [{ role: 'user', content: 'Say hello' }] })
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @NestedObjectArray(() => MessagesMessageDto)
  messages!: MessagesMessageDto[];

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: 'Answer briefly.',
  })
  @IsOptional()
  @IsMessagesSystem()
  system?: string | MessagesTextBlock[];

  @ApiProperty({ minimum: 1, example: 256 })
  @IsDefined({ message: 'max_tokens is required' })
  @IsInt()
  @Min(1)
  max_tokens!: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 0.7 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @ApiPropertyOptional({ minimum: 0, example: 40, description: 'Accepted and not passed on' })
  @IsOptional()
  @IsInt()
  @Min(0)
  top_k?: number;

  @ApiPropertyOptional({
    type: [String],
    example: ['\n\nHuman:'],
    description: 'Passed on to the provider; the answer ends before the first one',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  stop_sequences?: string[];

  @ApiPropertyOptional({ type: [MessagesToolDto] })
  @IsOptional()
  @ArrayMaxSize(128)
  @NestedObjectArray(() => MessagesToolDto)
  tools?: MessagesToolDto[];

  @ApiPropertyOptional({ type: MessagesToolChoiceDto })
  @IsOptional()
  @NestedObject(() => MessagesToolChoiceDto)
  @IsDeclaredTool('any', (choice) => (choice as MessagesToolChoiceDto | undefined)?.name)
  tool_choice?: MessagesToolChoiceDto;

  @ApiPropertyOptional({ type: MessagesThinkingDto })
  @IsOptional()
  @NestedObject(() => MessagesThinkingDto)
  thinking?: MessagesThinkingDto;

  @ApiPropertyOptional({ example: false, description: 'true answers with the Messages Server-Sent Events' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ type: MessagesMetadataDto })
  @IsOptional()
  @NestedObject(() => MessagesMetadataDto)
  metadata?: MessagesMetadataDto;

  @ApiPropertyOptional({
    type: ProviderPreferencesDto,
    description: 'Gateway routing, as in chat completions',
  })
  @IsOptional()
  @NestedObject(() => ProviderPreferencesDto)
  provider?: ProviderPreferencesDto;
}

/** The contract's message with its body checked by the public API's rules, as the service validates it. */
export class MessagesRpcMessageDto extends FormatRequest {
  @NestedObject(() => MessagesRequestDto)
  override body!: MessagesRequestDto;
}
