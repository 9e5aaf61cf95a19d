import { Controller } from '@nestjs/common';
import { EmbeddingList, EmbeddingsContracts } from '@gw/contracts';
import { EmbeddingRpcMessageDto } from '@gw/dto';
import { HandlesRpc, SendsHeartbeats } from '@gw/platform';
import { omitNullFields } from '../formats/omit-null-fields';
import { EmbeddingsService } from './embeddings.service';
import { WatchesForGoneCaller } from '../chat/gone-caller-watch';

@Controller()
@SendsHeartbeats()
@WatchesForGoneCaller()
export class EmbeddingsHandler {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @HandlesRpc(EmbeddingsContracts.create, EmbeddingRpcMessageDto)
  create(message: EmbeddingRpcMessageDto): Promise<EmbeddingList> {
    return this.embeddings.create({ ...message, body: omitNullFields(message.body) });
  }
}
