import { ApiProperty } from '@nestjs/swagger';

export class MessagesUsageDto {
  @ApiProperty({ example: 6 })
  input_tokens!: number;

  @ApiProperty({ example: 2 })
  output_tokens!: number;

  @ApiProperty({ type: Number, nullable: true, example: null })
  cache_creation_input_tokens!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: null })
  cache_read_input_tokens!: number | null;

  @ApiProperty({ example: 0.0028, description: 'Cost in roubles, rounded to 8 places' })
  cost_rub!: number;

  @ApiProperty({ example: 0.0028, description: 'Alias of cost_rub' })
  cost!: number;
}

/** The `message` object of the Anthropic Messages API. */
export class MessagesResponseDto {
  @ApiProperty({
    example: 'gen-6f1c2b1e-8a63-4bb8-9d57-1f0b8e3c2a10',
    description: 'The generation id, as in history',
  })
  id!: string;

  @ApiProperty({ enum: ['message'], example: 'message' })
  type!: 'message';

  @ApiProperty({ enum: ['assistant'], example: 'assistant' })
  role!: 'assistant';

  @ApiProperty({ example: 'demo/chat', description: 'Canonical model id, without alias suffix' })
  model!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    example: [{ type: 'text', text: 'Hello!' }],
    description:
      'thinking ({type: thinking, thinking, signature}) and redacted_thinking ({type: redacted_thinking, data}) blocks first where the provider reasoned, then text blocks and tool_use blocks ({type: tool_use, id, name, input})',
  })
  content!: Array<Record<string, unknown>>;

  @ApiProperty({
    enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal'],
    example: 'end_turn',
  })
  stop_reason!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  stop_sequence!: string | null;

  @ApiProperty({ type: MessagesUsageDto })
  usage!: MessagesUsageDto;

  @ApiProperty({ example: 'Mock Beta' })
  provider!: string;
}
