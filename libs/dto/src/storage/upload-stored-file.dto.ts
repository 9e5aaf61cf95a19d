import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoragePolicy } from '@gw/contracts';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

/** The fields of POST /v1/storage/files besides `file` (DESIGN.md §5.5). */
export class UploadStoredFileFieldsDto {
  @ApiPropertyOptional({ enum: ['TEMP_UPLOAD', 'PERMANENT'], default: 'TEMP_UPLOAD' })
  @IsIn(['TEMP_UPLOAD', 'PERMANENT'])
  storagePolicy: Extract<StoragePolicy, 'TEMP_UPLOAD' | 'PERMANENT'> = 'TEMP_UPLOAD';

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  externalUserId?: string;
}

/** The multipart body, for the API document. */
export class UploadStoredFileDto extends UploadStoredFileFieldsDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'An image, video or audio file' })
  file!: unknown;
}
