import { DomainError } from '@gw/contracts';
import type { ModelListDto, ModelListQueryDto } from '@gw/dto';
import type { CatalogueModel } from './catalogue-loader';
import type { ModelEndpoint } from './model-endpoints';

/** The loaded catalogue: lookups for routing and the public list without routing data. */
export class ModelCatalogue {
  private readonly byId: Map<string, CatalogueModel>;

  constructor(private readonly models: CatalogueModel[]) {
    this.byId = new Map(models.map((model) => [model.entry.id, model]));
  }

  find(id: string): CatalogueModel | null {
    return this.byId.get(id) ?? null;
  }

  /** The model a request on `endpoint` asks for; one that does not exist, or is not listed for that endpoint, is a 400 on `model`. */
  servingModel(id: string, endpoint: ModelEndpoint): CatalogueModel {
    const model = this.find(id);
    if (!model) throw new DomainError('invalid_model', `The model ${id} does not exist`, 'model');
    if (!model.entry.endpoints.includes(endpoint)) {
      throw new DomainError(
        'invalid_model',
        `The model ${id} is not served on ${endpoint} (its endpoints: ${model.entry.endpoints.join(', ')})`,
        'model',
      );
    }
    return model;
  }

  /** Catalogue order; a filter keeps the models that match it. */
  list(query: ModelListQueryDto = {}): ModelListDto {
    const data = this.models
      .map((model) => model.entry)
      .filter(
        (entry) =>
          (query.type === undefined || entry.type === query.type) &&
          (query.endpoint === undefined || entry.endpoints.includes(query.endpoint)),
      );
    return { data };
  }
}
