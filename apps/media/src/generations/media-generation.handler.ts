import { Controller } from '@nestjs/common';
import {
  AwaitMediaGenerationRequest,
  CancelMediaGenerationRequest,
  CreateMediaGenerationRequest,
  type GeneratedMediaFile,
  GenerationFilesRequest,
  GetMediaGenerationRequest,
  type ImageGenerationResult,
  ImageResultRequest,
  MediaContracts,
  type MediaGeneration,
  RunMediaOperationRequest,
} from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { MediaGenerationService } from './media-generation.service';
import { MediaGenerationTracker } from './media-generation-tracker.service';

@Controller()
export class MediaGenerationHandler {
  constructor(
    private readonly generations: MediaGenerationService,
    private readonly tracker: MediaGenerationTracker,
  ) {}

  @HandlesRpc(MediaContracts.getGeneration)
  get(request: GetMediaGenerationRequest): Promise<MediaGeneration> {
    return this.tracker.get(request.principal, request.id);
  }

  @HandlesRpc(MediaContracts.createGeneration)
  create(request: CreateMediaGenerationRequest): Promise<MediaGeneration> {
    return this.generations.create(request);
  }

  @HandlesRpc(MediaContracts.awaitGeneration)
  await(request: AwaitMediaGenerationRequest): Promise<MediaGeneration> {
    return this.tracker.await(request.principal, request.id, request.waitMs);
  }

  @HandlesRpc(MediaContracts.cancelGeneration)
  cancel(request: CancelMediaGenerationRequest): Promise<MediaGeneration> {
    return this.tracker.cancel(request);
  }

  @HandlesRpc(MediaContracts.runOperation)
  runOperation(request: RunMediaOperationRequest): Promise<MediaGeneration> {
    return this.generations.runOperation(request);
  }

  @HandlesRpc(MediaContracts.imageResult)
  imageResult(request: ImageResultRequest): Promise<ImageGenerationResult> {
    return this.tracker.imageResult(request.principal, request.id, request.responseFormat);
  }

  @HandlesRpc(MediaContracts.generationFiles)
  files(request: GenerationFilesRequest): Promise<{ files: GeneratedMediaFile[] }> {
    return this.tracker.files(request.principal, request.id);
  }
}
