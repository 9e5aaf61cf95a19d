import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  CompletionTokensDetails,
  GenerationRequestType,
  HistoryItem,
  HistoryListStatus,
  HistoryPage,
  PromptTokensDetails,
  ServerToolUse,
  TokenUsage,
} from '@gw/contracts';
import { PageMetaDto } from '../common/page-meta.dto';
import { HISTORY_LIST_STATUSES, HISTORY_REQUEST_TYPES } from './history-query.dto';

export class TokenUsageDto implements TokenUsage {
  @ApiProperty({ example: 12 })
  prompt_tokens!: number;

  @ApiProperty({ example: 34 })
  completion_tokens!: number;

  @ApiProperty({ example: 46 })
  total_tokens!: number;

  @ApiPropertyOptional({
    description:
      'Parts of prompt_tokens as the provider reported them: cached_tokens (read from its cache), cache_write_tokens (written to it; cache_write_1h_tokens of them for an hour), audio_tokens (cached_audio_tokens of them cached), image_tokens',
    example: {
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      audio_tokens: 0,
      cached_audio_tokens: 0,
      image_tokens: 0,
    },
  })
  prompt_tokens_details?: PromptTokensDetails;

  @ApiPropertyOptional({
    description: 'Parts of completion_tokens: reasoning_tokens, audio_tokens, image_tokens',
    example: { reasoning_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  })
  completion_tokens_details?: CompletionTokensDetails;

  @ApiPropertyOptional({ description: 'Searches the provider ran', example: { web_search_requests: 0 } })
  server_tool_use?: ServerToolUse;
}

/** The "History item" of the interface. */
export class HistoryItemDto implements HistoryItem {
  @ApiProperty({ example: 'gen_01JD3X9Q2M7K' })
  id!: string;

  @ApiProperty({ example: 'demo/chat' })
  model!: string;

  @ApiProperty({ example: 'Demo Chat' })
  modelDisplayName!: string;

  @ApiProperty({ enum: HISTORY_REQUEST_TYPES, example: 'chat' })
  requestType!: GenerationRequestType;

  @ApiProperty({ type: String, nullable: true, example: 'Mock Alpha' })
  provider!: string | null;

  @ApiProperty({ enum: HISTORY_LIST_STATUSES, example: 'completed' })
  status!: HistoryListStatus;

  @ApiProperty({ description: 'Cost in roubles, decimal string', example: '0.01230000' })
  cost!: string;

  @ApiProperty({ type: TokenUsageDto, nullable: true })
  usage!: TokenUsage | null;

  @ApiProperty({ type: Number, nullable: true, example: 840 })
  generationTimeMs!: number | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T17:05:12.345Z' })
  createdAt!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Null for a generation made without an API key',
    example: 'production',
  })
  apiKeyName!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Last 6 characters of the key',
    example: 'a1b2c3',
  })
  apiKeyShort!: string | null;
}

export class HistoryPageDto implements HistoryPage {
  @ApiProperty({ type: [HistoryItemDto] })
  items!: HistoryItemDto[];

  @ApiProperty({ type: PageMetaDto })
  meta!: PageMetaDto;
}
