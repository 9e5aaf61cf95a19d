import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ResponsesUsageDto {
  @ApiProperty({ example: 6 })
  input_tokens!: number;

  @ApiProperty({ example: { cached_tokens: 0 } })
  input_tokens_details!: { cached_tokens: number };

  @ApiProperty({ example: 2 })
  output_tokens!: number;

  @ApiProperty({ example: { reasoning_tokens: 0 } })
  output_tokens_details!: { reasoning_tokens: number };

  @ApiProperty({ example: 8 })
  total_tokens!: number;

  @ApiProperty({ example: 0.0021, description: 'Cost in roubles, rounded to 8 places' })
  cost_rub!: number;

  @ApiProperty({ example: 0.0021, description: 'Alias of cost_rub' })
  cost!: number;
}

export class ResponsesOutputItemDto {
  @ApiProperty({ enum: ['reasoning', 'message', 'function_call'], example: 'message' })
  type!: 'reasoning' | 'message' | 'function_call';

  @ApiProperty({ example: 'msg_6f1c2b1e8a634bb89d571f0b8e3c2a10' })
  id!: string;

  @ApiProperty({ enum: ['in_progress', 'completed', 'incomplete'], example: 'completed' })
  status!: string;

  @ApiPropertyOptional({ example: 'assistant', description: 'message items' })
  role?: 'assistant';

  @ApiPropertyOptional({
    example: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
    description: 'message items; reasoning items: the reasoning text as [{type: reasoning_text, text}]',
  })
  content?: Array<{ type: 'output_text' | 'reasoning_text'; text: string; annotations?: unknown[] }>;

  @ApiPropertyOptional({ example: 'call_abc123', description: 'function_call items' })
  call_id?: string;

  @ApiPropertyOptional({ example: 'get_weather', description: 'function_call items' })
  name?: string;

  @ApiPropertyOptional({
    example: '{"city":"Moscow"}',
    description: 'function_call items: JSON-encoded arguments',
  })
  arguments?: string;

  @ApiPropertyOptional({
    example: [{ type: 'summary_text', text: 'Looked up the weather.' }],
    description: 'reasoning items: the summary the provider gave',
  })
  summary?: Array<{ type: 'summary_text'; text: string }>;

  @ApiPropertyOptional({
    example: 'gAAAAABpF...',
    description: 'reasoning items: the reasoning the provider hid, to be sent back as it is',
  })
  encrypted_content?: string;

  @ApiPropertyOptional({
    example: 'EqoBCkgIARABGAIiQL2UoU0b1OHYi...',
    description: "reasoning items (OpenRouter's field): the signature of the reasoning text in content",
  })
  signature?: string;

  @ApiPropertyOptional({
    example: 'anthropic-claude-v1',
    description:
      "reasoning items (OpenRouter's field): whose reasoning it is, which decides who can take it back",
  })
  format?: string;
}

/** The `response` object of the OpenAI Responses API. */
export class ResponsesResponseDto {
  @ApiProperty({
    example: 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10',
    description: 'The generation id, as in history',
  })
  id!: string;

  @ApiProperty({ enum: ['response'], example: 'response' })
  object!: 'response';

  @ApiProperty({ example: 1767225600 })
  created_at!: number;

  @ApiProperty({
    enum: ['completed', 'incomplete'],
    example: 'completed',
    description: 'incomplete when max_output_tokens was reached or the content was filtered',
  })
  status!: string;

  @ApiProperty({ nullable: true, example: null })
  incomplete_details!: { reason: string } | null;

  @ApiProperty({ example: 'demo/chat', description: 'Canonical model id, without alias suffix' })
  model!: string;

  @ApiProperty({ type: [ResponsesOutputItemDto] })
  output!: ResponsesOutputItemDto[];

  @ApiProperty({ type: ResponsesUsageDto })
  usage!: ResponsesUsageDto;

  @ApiProperty({ example: 'Mock Alpha' })
  provider!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: {} })
  metadata?: Record<string, string>;
}
