import { ApiProperty } from '@nestjs/swagger';
import { PageMetaDto } from '../common/page-meta.dto';

export class StoredFileDto {
  @ApiProperty({ example: '3f1c2d4e-8a9b-4c5d-9e0f-1a2b3c4d5e6f' }) id!: string;
  @ApiProperty({ enum: ['IMAGE', 'VIDEO', 'AUDIO'] }) fileType!: string;
  @ApiProperty({ example: 'image/png' }) mimeType!: string;
  @ApiProperty({ enum: ['USER_UPLOAD', 'AI_GENERATION'] }) source!: string;
  @ApiProperty({ enum: ['TEMP_UPLOAD', 'TEMP_GENERATION', 'PERMANENT'] }) storagePolicy!: string;
  @ApiProperty({ example: 'https://cdn.example.com/files/3f1c.png' }) url!: string;
  @ApiProperty({ example: 204800 }) size!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: String, nullable: true, maxLength: 128 }) externalUserId!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt!: string | null;
}

export class StoredFilePageDto {
  @ApiProperty({ type: [StoredFileDto] }) data!: StoredFileDto[];
  @ApiProperty({ type: PageMetaDto }) meta!: PageMetaDto;
}

export class FilesByTypeDto {
  @ApiProperty({ example: 12 }) IMAGE!: number;
  @ApiProperty({ example: 3 }) VIDEO!: number;
  @ApiProperty({ example: 5 }) AUDIO!: number;
}

export class FilesByPolicyDto {
  @ApiProperty({ example: 4 }) TEMP_UPLOAD!: number;
  @ApiProperty({ example: 6 }) TEMP_GENERATION!: number;
  @ApiProperty({ example: 10 }) PERMANENT!: number;
}

/** The "Storage statistics" of the interface. */
export class StorageStatsDto {
  @ApiProperty({ example: 52428800 }) usedBytes!: number;
  @ApiProperty({ example: 10737418240, description: 'Total available volume' }) totalBytes!: number;
  @ApiProperty({ example: 20 }) fileCount!: number;
  @ApiProperty({ type: FilesByTypeDto }) filesByType!: FilesByTypeDto;
  @ApiProperty({ type: FilesByPolicyDto }) filesByPolicy!: FilesByPolicyDto;
  @ApiProperty({ example: 0.49 }) usagePercent!: number;
}
