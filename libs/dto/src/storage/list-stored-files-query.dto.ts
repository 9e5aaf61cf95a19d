import { ApiPropertyOptional } from '@nestjs/swagger';
import type { ListStoredFilesQuery, StoragePolicy, StoredFileSource, StoredFileType } from '@gw/contracts';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../common/page-query.dto';

export class ListStoredFilesQueryDto extends PageQueryDto implements ListStoredFilesQuery {
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
