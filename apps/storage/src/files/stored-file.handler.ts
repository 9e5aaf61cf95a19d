import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AbortGeneratedFileRequest,
  AbortUploadRequest,
  BeginGeneratedFileRequest,
  BeginUploadRequest,
  CompleteUploadRequest,
  DeleteStoredFileRequest,
  GeneratedFileContracts,
  GetStorageStatsRequest,
  ListStoredFilesRequest,
  RegisterGeneratedFileRequest,
  StorageContracts,
  StorageStats,
  StoredFile,
  StoredFilePage,
  UploadSlot,
} from '@gw/contracts';
import { ListStoredFilesQueryDto } from '@gw/dto';
import { HandlesRpc, MessageValidationPipe } from '@gw/platform';
import { StoredFileService } from './stored-file.service';

@Controller()
export class StoredFileHandler {
  constructor(private readonly files: StoredFileService) {}

  /**
   * The query is the public API's and is validated again here with the gateway's own DTO (a service
   * trusts no caller's shape); its faults name the query field itself, as at the gateway.
   */
  @HandlesRpc(StorageContracts.listFiles)
  list(
    request: ListStoredFilesRequest,
    @Payload('query', new MessageValidationPipe(ListStoredFilesQueryDto)) query: ListStoredFilesQueryDto,
  ): Promise<StoredFilePage> {
    return this.files.list(request.principal, query);
  }

  @HandlesRpc(StorageContracts.stats)
  stats(request: GetStorageStatsRequest): Promise<StorageStats> {
    return this.files.stats(request.principal);
  }

  @HandlesRpc(StorageContracts.deleteFile)
  delete(request: DeleteStoredFileRequest): Promise<{ success: true }> {
    return this.files.delete(request.principal, request.id);
  }

  @HandlesRpc(StorageContracts.beginUpload)
  beginUpload(request: BeginUploadRequest): Promise<UploadSlot> {
    return this.files.beginUpload(request.principal.organizationId, 'USER_UPLOAD');
  }

  @HandlesRpc(StorageContracts.completeUpload)
  completeUpload(request: CompleteUploadRequest): Promise<StoredFile> {
    return this.files.completeUpload(request);
  }

  @HandlesRpc(StorageContracts.abortUpload)
  abortUpload(request: AbortUploadRequest): Promise<{ success: true }> {
    return this.files.abortUpload(request.principal.organizationId, request.fileId);
  }

  @HandlesRpc(GeneratedFileContracts.begin)
  beginGenerated(request: BeginGeneratedFileRequest): Promise<UploadSlot> {
    return this.files.beginUpload(request.organizationId, 'AI_GENERATION');
  }

  @HandlesRpc(GeneratedFileContracts.register)
  registerGenerated(request: RegisterGeneratedFileRequest): Promise<StoredFile> {
    return this.files.registerGenerated(request);
  }

  @HandlesRpc(GeneratedFileContracts.abort)
  abortGenerated(request: AbortGeneratedFileRequest): Promise<{ success: true }> {
    return this.files.abortGenerated(request.organizationId, request.objectKey);
  }
}
