import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmbeddingList, EmbeddingsContracts } from '@gw/contracts';
import { EmbeddingRpcMessageDto } from '@gw/dto';
import { omitNullFields } from '../formats/omit-null-fields';
import { EmbeddingsService } from './embeddings.service';

@Controller()
export class EmbeddingsHandler {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @MessagePattern(EmbeddingsContracts.create.subject)
  create(@Payload() message: EmbeddingRpcMessageDto): Promise<EmbeddingList> {
    return this.embeddings.create({ ...message, body: omitNullFields(message.body) });
  }
}
