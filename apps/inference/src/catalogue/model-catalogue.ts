import type { ModelListDto, ModelListQueryDto } from '@gw/dto';
import type { CatalogueModel } from './catalogue-loader';

/** The loaded catalogue: lookups for routing and the public list without routing data. */
export class ModelCatalogue {
  private readonly byId: Map<string, CatalogueModel>;

  constructor(private readonly models: CatalogueModel[]) {
    this.byId = new Map(models.map((model) => [model.entry.id, model]));
  }

  find(id: string): CatalogueModel | null {
    return this.byId.get(id) ?? null;
  }

  /** Catalogue order; a filter keeps the models that match it. */
  list(query: ModelListQueryDto = {}): ModelListDto {
    const data = this.models
      .map((model) => model.entry)
      .filter((entry) => (query.type === undefined || entry.type === query.type) && (query.endpoint === undefined || entry.endpoints.includes(query.endpoint)));
    return { data };
  }
}
