import { ApiPropertyOptional } from '@nestjs/swagger';
import type { GenerationRequestType, HistoryListStatus, HistoryQuery } from '@gw/contracts';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsISO8601, IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../common/page-query.dto';

/** `embedding` is accepted beyond the interface's four types because embeddings are recorded too (DESIGN §5.10). */
export const HISTORY_REQUEST_TYPES: GenerationRequestType[] = [
  'chat',
  'image',
  'video',
  'audio',
  'embedding',
];
export const HISTORY_LIST_STATUSES: HistoryListStatus[] = ['completed', 'failed', 'pending'];

/** Query strings carry "true"/"false"; a message between services carries the boolean itself. */
function toBoolean({ value }: { value: unknown }): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

export class HistoryQueryDto extends PageQueryDto implements HistoryQuery {
  @ApiPropertyOptional({ description: 'ISO 8601 start (inclusive)', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  dateFrom?: string;

  @ApiPropertyOptional({
    description: 'ISO 8601 end (inclusive); a bare date such as 2026-11-30 includes that whole day (UTC)',
    example: '2026-11-30',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  dateTo?: string;

  @ApiPropertyOptional({ enum: HISTORY_REQUEST_TYPES, example: 'chat' })
  @IsOptional()
  @IsIn(HISTORY_REQUEST_TYPES)
  requestType?: GenerationRequestType;

  @ApiPropertyOptional({ enum: HISTORY_LIST_STATUSES, example: 'completed' })
  @IsOptional()
  @IsIn(HISTORY_LIST_STATUSES)
  status?: HistoryListStatus;

  @ApiPropertyOptional({
    description: 'Only with a console session (JWT)',
    format: 'uuid',
    example: '6c1e7a52-1d4b-4a8e-9f0a-3b2c1d0e9f87',
  })
  @IsOptional()
  @IsUUID()
  apiKeyId?: string;

  @ApiPropertyOptional({
    description: 'Only generations made without an API key; only with a console session (JWT)',
    example: false,
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  withoutApiKey?: boolean;

  @ApiPropertyOptional({ enum: ['createdAt', 'clientCost'], default: 'createdAt' })
  @IsIn(['createdAt', 'clientCost'])
  sortBy: HistoryQuery['sortBy'] = 'createdAt';

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsIn(['asc', 'desc'])
  sortOrder: HistoryQuery['sortOrder'] = 'desc';
}
