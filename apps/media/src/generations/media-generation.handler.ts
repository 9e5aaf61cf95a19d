import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GetMediaGenerationRequest, MediaContracts, MediaGeneration } from '@gw/contracts';
import { MediaGenerationService } from './media-generation.service';

@Controller()
export class MediaGenerationHandler {
  constructor(private readonly generations: MediaGenerationService) {}

  @MessagePattern(MediaContracts.getGeneration.subject)
  get(@Payload() request: GetMediaGenerationRequest): Promise<MediaGeneration> {
    return this.generations.get(request.principal, request.id);
  }
}
