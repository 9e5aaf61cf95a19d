import { ApiProperty } from '@nestjs/swagger';
import {
  GENERATION_STATUSES,
  type GenerationFinalStatus,
  type GenerationRequestType,
  type GenerationResponseMode,
  type HistoryDetail,
  type TokenUsage,
} from '@gw/contracts';
import { TokenUsageDto } from './history-item.dto';
import { HISTORY_REQUEST_TYPES } from './history-query.dto';

/** The "History detail" of the interface. */
export class HistoryDetailDto implements HistoryDetail {
  @ApiProperty({ example: 'gen_01JD3X9Q2M7K' })
  id!: string;

  @ApiProperty({ format: 'uuid', example: '3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01' })
  organizationId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: '6c1e7a52-1d4b-4a8e-9f0a-3b2c1d0e9f87',
  })
  apiKeyId!: string | null;

  @ApiProperty({ example: 'demo/chat' })
  unifiedModelId!: string;

  @ApiProperty({ enum: HISTORY_REQUEST_TYPES, example: 'chat' })
  requestType!: GenerationRequestType;

  @ApiProperty({
    description: 'Open list: chat_completions, responses, messages, embeddings, media, …',
    example: 'chat_completions',
  })
  apiType!: string;

  @ApiProperty({ enum: ['sync', 'stream', 'async'], example: 'stream' })
  responseMode!: GenerationResponseMode;

  @ApiProperty({
    enum: GENERATION_STATUSES,
    example: 'completed',
    description: 'Generation status; a chat, embedding or transcription is recorded once finished',
  })
  status!: GenerationFinalStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Open list: stop, length, tool_calls, content_filter, …',
    example: 'stop',
  })
  finishReason!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Provider', example: 'Mock Alpha' })
  finalEndpointSlug!: string | null;

  @ApiProperty({ type: TokenUsageDto, nullable: true })
  usage!: TokenUsage | null;

  @ApiProperty({ description: 'Cost in roubles, decimal string', example: '0.01230000' })
  clientCost!: string;

  @ApiProperty({ type: Number, nullable: true, example: 840 })
  generationTimeMs!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Delay to the first response', example: 120 })
  latencyMs!: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 0 })
  queueTimeMs!: number | null;

  @ApiProperty({ example: false })
  isCancelled!: boolean;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T17:05:12.345Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: '2026-11-22T17:05:13.185Z' })
  completedAt!: string | null;

  @ApiProperty({ example: 1 })
  attemptsCount!: number;
}
