import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Principal, StorageContracts, StorageStats, StoredFile, StoredFilePage } from '@gw/contracts';
import {
  ErrorEnvelopeDto,
  ListStoredFilesQueryDto,
  StorageStatsDto,
  StoredFilePageDto,
  StoredFileDto,
  SuccessDto,
  UploadStoredFileDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Request } from 'express';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { StoredFileUploadService } from './stored-file-upload.service';

@ApiTags('storage')
@Controller('v1/storage')
export class StorageController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly uploads: StoredFileUploadService,
  ) {}

  @Post('files')
  @HttpCode(201)
  @Authenticated()
  @ApiOperation({
    summary: 'Upload a file',
    description:
      'multipart/form-data: `file` (an image, video or audio file, recognised by its content), optional `storagePolicy` (TEMP_UPLOAD, the default, or PERMANENT) and `externalUserId` (at most 128 characters). The body is streamed to storage, never held whole.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadStoredFileDto })
  @ApiCreatedResponse({ type: StoredFileDto })
  @ApiBadRequestResponse({
    description:
      'A missing file, an invalid field (invalid_request), or not an image, video or audio file (unsupported_media_type)',
    type: ErrorEnvelopeDto,
  })
  @ApiPayloadTooLargeResponse({
    description: 'The file exceeds the size limit (payload_too_large) or the quota (storage_quota_exceeded)',
    type: ErrorEnvelopeDto,
  })
  upload(@CurrentPrincipal() principal: Principal, @Req() request: Request): Promise<StoredFile> {
    return this.uploads.upload(principal, request);
  }

  @Get('files')
  @Authenticated()
  @ApiOperation({ summary: 'List stored files' })
  @ApiOkResponse({ type: StoredFilePageDto })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListStoredFilesQueryDto,
  ): Promise<StoredFilePage> {
    return this.rpc.request(StorageContracts.listFiles, { principal, query: { ...query } });
  }

  @Get('stats')
  @Authenticated('user')
  @ApiOperation({ summary: 'Storage statistics (console JWT of an organization admin)' })
  @ApiOkResponse({ type: StorageStatsDto })
  stats(@CurrentPrincipal() principal: Principal): Promise<StorageStats> {
    return this.rpc.request(StorageContracts.stats, { principal });
  }

  @Delete('files/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Delete a file irreversibly from storage and the CDN' })
  @ApiOkResponse({ type: SuccessDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<{ success: true }> {
    return this.rpc.request(StorageContracts.deleteFile, { principal, id });
  }
}
