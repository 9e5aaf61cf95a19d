import { ApiPropertyOptional } from '@nestjs/swagger';
import type { ListStoredFilesQuery, StoragePolicy, StoredFileSource, StoredFileType } from '@gw/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class ListStoredFilesQueryDto implements ListStoredFilesQuery {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page = 1;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;

  @ApiPropertyOptional({ enum: ['IMAGE', 'VIDEO', 'AUDIO'] })
  @IsOptional()
  @IsIn(['IMAGE', 'VIDEO', 'AUDIO'])
  fileType?: StoredFileType;

  @ApiPropertyOptional({ enum: ['USER_UPLOAD', 'AI_GENERATION'] })
  @IsOptional()
  @IsIn(['USER_UPLOAD', 'AI_GENERATION'])
  source?: StoredFileSource;

  @ApiPropertyOptional({ enum: ['TEMP_UPLOAD', 'TEMP_GENERATION', 'PERMANENT'] })
  @IsOptional()
  @IsIn(['TEMP_UPLOAD', 'TEMP_GENERATION', 'PERMANENT'])
  storagePolicy?: StoragePolicy;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  externalUserId?: string;

  @ApiPropertyOptional({ enum: ['createdAt', 'size', 'expiresAt', 'externalUserId'], default: 'createdAt' })
  @IsIn(['createdAt', 'size', 'expiresAt', 'externalUserId'])
  sortBy: ListStoredFilesQuery['sortBy'] = 'createdAt';

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsIn(['asc', 'desc'])
  sortOrder: ListStoredFilesQuery['sortOrder'] = 'desc';
}
