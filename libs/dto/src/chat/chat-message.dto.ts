import { ApiProperty, ApiPropertyOptional, SchemaObject } from '@nestjs/swagger';
import { IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { NestedObject, NestedObjectArray } from '../common/nested-object';
import type { ReasoningDetail } from '@gw/contracts';
import { ChatContentPart, IMAGE_DETAILS, IsChatContent } from './chat-content';
import { IsReasoningDetails, REASONING_DETAIL_SCHEMA } from './reasoning-details';

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

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
  @IsDefined({ message: '$property is required' })
  @NestedObject(() => ChatToolCallFunctionDto)
  function!: ChatToolCallFunctionDto;
}

const CONTENT_PART_SCHEMAS: SchemaObject[] = [
  {
    type: 'object',
    required: ['type', 'text'],
    properties: { type: { type: 'string', enum: ['text'] }, text: { type: 'string' } },
  },
  {
    type: 'object',
    required: ['type', 'image_url'],
    properties: {
      type: { type: 'string', enum: ['image_url'] },
      image_url: {
        type: 'object',
        required: ['url'],
        properties: {
          url: { type: 'string', description: 'An http(s) URL or a data: URL' },
          detail: { type: 'string', enum: [...IMAGE_DETAILS] },
        },
      },
    },
  },
];

export class ChatMessageDto {
  @ApiProperty({ enum: CHAT_ROLES, example: 'user' })
  @IsIn(CHAT_ROLES)
  role!: ChatRole;

  @ApiPropertyOptional({
    description:
      'A string, a non-empty array of content parts, or null for an assistant message with tool_calls',
    oneOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: { oneOf: CONTENT_PART_SCHEMAS } }],
    nullable: true,
    example: 'Hello!',
  })
  @ValidateIf(
    (message: ChatMessageDto) =>
      !isToolCallingAssistant(message) || (message.content !== null && message.content !== undefined),
  )
  @IsDefined({
    message: 'content is required (it may be null only for an assistant message with tool_calls)',
  })
  @IsChatContent()
  content?: string | ChatContentPart[] | null;

  @ApiPropertyOptional({ example: 'alice' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "An assistant's refusal as OpenAI returns it, so a returned message can be sent back as it is",
  })
  @IsOptional()
  @IsString()
  refusal?: string | null;

  @ApiPropertyOptional({ description: 'Required when role is tool', example: 'call_abc123' })
  @ValidateIf(
    (message: ChatMessageDto) =>
      message.role === 'tool' || (message.tool_call_id !== undefined && message.tool_call_id !== null),
  )
  @IsDefined({ message: 'tool_call_id is required for a tool message' })
  @IsString()
  @IsNotEmpty()
  tool_call_id?: string;

  @ApiPropertyOptional({ type: [ChatToolCallDto] })
  @IsOptional()
  @NestedObjectArray(() => ChatToolCallDto)
  tool_calls?: ChatToolCallDto[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "An assistant's reasoning text as the gateway returned it; its reasoning_details are what is sent on",
  })
  @IsOptional()
  @IsString()
  reasoning?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: REASONING_DETAIL_SCHEMA,
    description:
      "An assistant's reasoning items as the gateway returned them (OpenRouter's shape); sent back unchanged, the provider that produced them continues from them",
  })
  @IsOptional()
  @IsReasoningDetails()
  reasoning_details?: ReasoningDetail[];
}

function isToolCallingAssistant(message: ChatMessageDto): boolean {
  return message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}
