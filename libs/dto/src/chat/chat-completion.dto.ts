import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ReasoningDetail } from '@gw/contracts';
import { ChatToolCallDto } from './chat-message.dto';
import { REASONING_DETAIL_SCHEMA } from './reasoning-details';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});

export class ChatCompletionUsageDto {
  @ApiProperty({ example: 12 })
  prompt_tokens!: number;

  @ApiProperty({ example: 3 })
  completion_tokens!: number;

  @ApiProperty({ example: 15 })
  total_tokens!: number;

  @ApiProperty({ example: 0.0021, description: 'Cost in roubles, rounded to 8 places' })
  cost_rub!: number;

  @ApiProperty({ example: 0.0021, description: 'Alias of cost_rub' })
  cost!: number;
}

export class ChatCompletionMessageDto {
  @ApiProperty({ example: 'assistant', enum: ['assistant'] })
  role!: 'assistant';

  @ApiProperty({ type: String, nullable: true, example: 'Hello!' })
  content!: string | null;

  @ApiPropertyOptional({ type: [ChatToolCallDto] })
  tool_calls?: ChatToolCallDto[];

  @ApiPropertyOptional({
    example: 'The user greets me.',
    description: 'The reasoning text, when the provider reasoned',
  })
  reasoning?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: REASONING_DETAIL_SCHEMA,
    description:
      'The reasoning items (OpenRouter’s shape), signed or encrypted as the provider gave them; send them back with the message',
  })
  reasoning_details?: ReasoningDetail[];
}

export class ChatCompletionChoiceDto {
  @ApiProperty({ example: 0 })
  index!: number;

  @ApiProperty({ type: ChatCompletionMessageDto })
  message!: ChatCompletionMessageDto;

  @ApiProperty({ example: 'stop', description: 'stop, length, tool_calls or content_filter' })
  finish_reason!: ChatFinishReason;
}

export class ChatCompletionDto {
  @ApiProperty({ example: 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10' })
  id!: string;

  @ApiProperty({ example: 'chat.completion', enum: ['chat.completion'] })
  object!: 'chat.completion';

  @ApiProperty({ example: 1767225600 })
  created!: number;

  @ApiProperty({ example: 'demo/chat', description: 'Canonical model id, without alias suffix' })
  model!: string;

  @ApiProperty({ example: 'Mock Alpha' })
  provider!: string;

  @ApiProperty({ type: [ChatCompletionChoiceDto] })
  choices!: ChatCompletionChoiceDto[];

  @ApiProperty({ type: ChatCompletionUsageDto })
  usage!: ChatCompletionUsageDto;
}

export class ChatCompletionChunkToolCallDto {
  @ApiProperty({ example: 0 })
  index!: number;

  @ApiPropertyOptional({ example: 'call_abc123' })
  id?: string;

  @ApiPropertyOptional({ example: 'function' })
  type?: 'function';

  @ApiPropertyOptional({ example: { name: 'get_weather', arguments: '{"city":' } })
  function?: { name?: string; arguments?: string };
}

export class ChatCompletionDeltaDto {
  @ApiPropertyOptional({ example: 'assistant' })
  role?: 'assistant';

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Hel' })
  content?: string | null;

  @ApiPropertyOptional({ type: [ChatCompletionChunkToolCallDto] })
  tool_calls?: ChatCompletionChunkToolCallDto[];

  @ApiPropertyOptional({ example: 'The user' })
  reasoning?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: REASONING_DETAIL_SCHEMA,
    description: 'Pieces of reasoning items: the pieces with one index make one item',
  })
  reasoning_details?: ReasoningDetail[];
}

export class ChatCompletionChunkChoiceDto {
  @ApiProperty({ example: 0 })
  index!: number;

  @ApiProperty({ type: ChatCompletionDeltaDto })
  delta!: ChatCompletionDeltaDto;

  @ApiProperty({ type: String, nullable: true, example: null })
  finish_reason!: ChatFinishReason | null;
}

/** One Server-Sent Event of a streamed completion; the last one carries usage with the cost. */
export class ChatCompletionChunkDto {
  @ApiProperty({ example: 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10' })
  id!: string;

  @ApiProperty({ example: 'chat.completion.chunk', enum: ['chat.completion.chunk'] })
  object!: 'chat.completion.chunk';

  @ApiProperty({ example: 1767225600 })
  created!: number;

  @ApiProperty({ example: 'demo/chat' })
  model!: string;

  @ApiProperty({ example: 'Mock Alpha' })
  provider!: string;

  @ApiProperty({ type: [ChatCompletionChunkChoiceDto] })
  choices!: ChatCompletionChunkChoiceDto[];

  @ApiPropertyOptional({ type: ChatCompletionUsageDto })
  usage?: ChatCompletionUsageDto;
}
