import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Principal, StorageContracts, StorageStats, StoredFilePage } from '@gw/contracts';
import {
  ErrorEnvelopeDto,
  ListStoredFilesQueryDto,
  StorageStatsDto,
  StoredFilePageDto,
  SuccessDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';

@ApiTags('storage')
@Controller('v1/storage')
export class StorageController {
  constructor(private readonly rpc: RpcClient) {}

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
