import { ApiProperty } from '@nestjs/swagger';
import type {
  GenerationRequestType,
  HistoryItem,
  HistoryListStatus,
  HistoryPage,
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
