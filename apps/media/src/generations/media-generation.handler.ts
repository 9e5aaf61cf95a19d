import { Controller } from '@nestjs/common';
import { GetMediaGenerationRequest, MediaContracts, MediaGeneration } from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { MediaGenerationService } from './media-generation.service';

@Controller()
export class MediaGenerationHandler {
  constructor(private readonly generations: MediaGenerationService) {}

  @HandlesRpc(MediaContracts.getGeneration)
  get(request: GetMediaGenerationRequest): Promise<MediaGeneration> {
    return this.generations.get(request.principal, request.id);
  }
}
