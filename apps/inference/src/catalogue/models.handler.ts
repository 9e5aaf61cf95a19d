import { Controller } from '@nestjs/common';
import { InferenceContracts, ModelList } from '@gw/contracts';
import { ModelListQueryDto } from '@gw/dto';
import { ModelCatalogue } from '@gw/catalogue';
import { HandlesRpc } from '@gw/platform';

@Controller()
export class ModelsHandler {
  constructor(private readonly catalogue: ModelCatalogue) {}

  @HandlesRpc(InferenceContracts.listModels, ModelListQueryDto)
  list(query: ModelListQueryDto): ModelList {
    return this.catalogue.list(query);
  }
}
