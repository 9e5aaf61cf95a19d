import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InferenceContracts, ModelList } from '@gw/contracts';
import { ModelListQueryDto } from '@gw/dto';
import { ModelCatalogue } from '@gw/catalogue';

@Controller()
export class ModelsHandler {
  constructor(private readonly catalogue: ModelCatalogue) {}

  @MessagePattern(InferenceContracts.listModels.subject)
  list(@Payload() query: ModelListQueryDto): ModelList {
    return this.catalogue.list(query);
  }
}
