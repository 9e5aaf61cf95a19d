import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DeleteStoredFileRequest,
  GetStorageStatsRequest,
  Principal,
  StorageContracts,
  StorageStats,
  StoredFilePage,
} from '@gw/contracts';
import { ListStoredFilesQueryDto } from '@gw/dto';
import { StoredFileService } from './stored-file.service';

@Controller()
export class StoredFileHandler {
  constructor(private readonly files: StoredFileService) {}

  /** The query is validated again here with the gateway's own DTO: a service trusts no caller's shape. */
  @MessagePattern(StorageContracts.listFiles.subject)
  list(
    @Payload('principal') principal: Principal,
    @Payload('query') query: ListStoredFilesQueryDto,
  ): Promise<StoredFilePage> {
    return this.files.list(principal, query);
  }

  @MessagePattern(StorageContracts.stats.subject)
  stats(@Payload() request: GetStorageStatsRequest): Promise<StorageStats> {
    return this.files.stats(request.principal);
  }

  @MessagePattern(StorageContracts.deleteFile.subject)
  delete(@Payload() request: DeleteStoredFileRequest): Promise<{ success: true }> {
    return this.files.delete(request.principal, request.id);
  }
}
