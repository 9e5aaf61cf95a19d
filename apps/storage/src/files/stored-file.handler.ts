import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeleteStoredFileRequest, GetStorageStatsRequest, ListStoredFilesRequest, StorageContracts, StorageStats, StoredFilePage } from '@gw/contracts';
import { StoredFileService } from './stored-file.service';

@Controller()
export class StoredFileHandler {
  constructor(private readonly files: StoredFileService) {}

  @MessagePattern(StorageContracts.listFiles.subject)
  list(@Payload() request: ListStoredFilesRequest): Promise<StoredFilePage> {
    return this.files.list(request.principal, request.query);
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
