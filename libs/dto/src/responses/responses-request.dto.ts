import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
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
import { REASONING_EFFORTS, ReasoningEffort } from '../chat/chat-completion-request.dto';
import { ProviderPreferencesDto } from '../chat/provider-preferences.dto';
import { IsMetadata, METADATA_SCHEMA } from '../common/metadata';
import { NestedObject, NestedObjectArray } from '../common/nested-object';
import {
  IsDeclaredTool,
  IsResponsesInput,
  IsResponsesToolChoice,
  ResponsesInputItem,
  TOOL_NAME,
} from './responses-validators';

export class ResponsesFunctionToolDto {
  @ApiProperty({ enum: ['function'], example: 'function', description: 'Only function tools are supported' })
  @IsIn(['function'])
  type!: 'function';

  @ApiProperty({ example: 'get_weather', pattern: TOOL_NAME.source })
  @IsString()
  @Matches(TOOL_NAME, { message: 'name must be 1 to 64 letters, digits, underscores or dashes' })
  name!: string;

  @ApiPropertyOptional({ example: 'Current weather in a city' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

export const RESPONSES_TEXT_FORMATS = ['text', 'json_object', 'json_schema'] as const;

export class ResponsesTextFormatDto {
  @ApiProperty({ enum: RESPONSES_TEXT_FORMATS, example: 'json_schema' })
  @IsIn(RESPONSES_TEXT_FORMATS)
  type!: (typeof RESPONSES_TEXT_FORMATS)[number];

  @ApiPropertyOptional({ example: 'answer', description: 'Required for json_schema' })
  @ValidateIf((format: ResponsesTextFormatDto) => format.type === 'json_schema' || format.name !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  name?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { city: { type: 'string' } } },
    description: 'Required for json_schema',
  })
  @ValidateIf(
    (format: ResponsesTextFormatDto) => format.type === 'json_schema' || format.schema !== undefined,
  )
  @IsObject()
  schema?: Record<string, unknown>;

  @ApiPropertyOptional({ example: 'A city name' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ example: true })
  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

export class ResponsesTextDto {
  @ApiPropertyOptional({ type: ResponsesTextFormatDto })
  @IsOptional()
  @NestedObject(() => ResponsesTextFormatDto)
  format?: ResponsesTextFormatDto;
}

export class ResponsesReasoningDto {
  @ApiPropertyOptional({ enum: REASONING_EFFORTS, example: 'low' })
  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  effort?: ReasoningEffort;

  @ApiPropertyOptional({
    enum: ['auto', 'concise', 'detailed'],
    description:
      'Accepted; reasoning items are returned as the provider gives them (summary, text, encrypted content)',
  })
  @IsOptional()
  @IsIn(['auto', 'concise', 'detailed'])
  summary?: 'auto' | 'concise' | 'detailed';
}

/** `POST /v1/responses`: the OpenAI Responses request, run through the gateway's chat pipeline. */
export class ResponsesRequestDto {
  @ApiProperty({
    example: 'demo/chat',
    description: 'Model id, optionally with an alias suffix (`demo/chat@provider=Mock Alpha`)',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  model!: string;

  @ApiProperty({
    description:
      'A string (one user message) or an array of input items: `{role: user|assistant|system|developer, content: string | [{type: input_text, text} | {type: input_image, image_url}]}`, `{type: function_call, call_id, name, arguments}`, `{type: function_call_output, call_id, output}`, `{type: reasoning, id, summary, content?, encrypted_content?, signature?, format?}` as an earlier response returned it',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }],
  })
  @IsDefined({ message: 'input is required' })
  @IsResponsesInput()
  input!: string | ResponsesInputItem[];

  @ApiPropertyOptional({
    example: 'Answer briefly.',
    description: 'A system message placed before the input',
  })
  @IsOptional()
  @IsString()
  instructions?: string;

  @ApiPropertyOptional({ minimum: 1, example: 256 })
  @IsOptional()
  @IsInt()
  @Min(1)
  max_output_tokens?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 2, example: 0.7 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 1 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @ApiPropertyOptional({ type: [ResponsesFunctionToolDto] })
  @IsOptional()
  @ArrayMaxSize(128)
  @NestedObjectArray(() => ResponsesFunctionToolDto)
  tools?: ResponsesFunctionToolDto[];

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', enum: ['none', 'auto', 'required'] }, { type: 'object' }],
    example: 'auto',
  })
  @IsOptional()
  @IsResponsesToolChoice()
  @IsDeclaredTool('required', (choice) =>
    typeof choice === 'object' && choice !== null ? (choice as { name?: unknown }).name : undefined,
  )
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; name: string };

  @ApiPropertyOptional({
    example: true,
    description: 'Echoed; the model decides whether calls run in parallel',
  })
  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean;

  @ApiPropertyOptional({ type: ResponsesTextDto, example: { format: { type: 'json_object' } } })
  @IsOptional()
  @NestedObject(() => ResponsesTextDto)
  text?: ResponsesTextDto;

  @ApiPropertyOptional({ type: ResponsesReasoningDto })
  @IsOptional()
  @NestedObject(() => ResponsesReasoningDto)
  reasoning?: ResponsesReasoningDto;

  @ApiPropertyOptional({ example: false, description: 'true answers with the Responses Server-Sent Events' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({
    example: false,
    description: 'Accepted; responses are not stored for later retrieval (history keeps the generation)',
  })
  @IsOptional()
  @IsBoolean()
  store?: boolean;

  @ApiPropertyOptional({
    type: [String],
    example: ['reasoning.encrypted_content'],
    description:
      'Accepted; reasoning items carry the encrypted content whenever the provider gives it, asked for or not',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  include?: string[];

  @ApiPropertyOptional({ example: 'user-42' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;

  @ApiPropertyOptional({
    ...METADATA_SCHEMA,
    example: { ticket: 'T-1' },
    description: 'Echoed in the response',
  })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    type: ProviderPreferencesDto,
    description: 'Gateway routing, as in chat completions',
  })
  @IsOptional()
  @NestedObject(() => ProviderPreferencesDto)
  provider?: ProviderPreferencesDto;
}

/** The contract's message with its body checked by the public API's rules, as the service validates it. */
export class ResponsesRpcMessageDto extends FormatRequest {
  @NestedObject(() => ResponsesRequestDto)
  override body!: ResponsesRequestDto;
}
