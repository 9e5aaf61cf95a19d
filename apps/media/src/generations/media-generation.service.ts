import { Inject, Injectable } from '@nestjs/common';
import {
  type CreateMediaGenerationRequest,
  DomainError,
  type GenerationRequestType,
  type MediaGeneration,
  type MediaOperation,
  type MediaSurface,
  type Principal,
  type RunMediaOperationRequest,
} from '@gw/contracts';
import { type CatalogueModel, type ModelEndpoint, ModelCatalogue } from '@gw/catalogue';
import type { Pricing } from '@gw/pricing';
import { randomUUID } from 'node:crypto';
import { MediaJobRunner } from '../jobs/media-job-runner.service';
import { MediaHolds } from '../money/media-holds.service';
import { checkParams } from '../params/media-params';
import { mediaPrice } from '../pricing/media-price';
import { MediaResults } from '../results/media-results.service';
import type { MediaGenerationEntity } from './media-generation.entity';
import { MediaGenerationRepository } from './media-generation.repository';
import { ownedGeneration } from './owned-generation';

export const MEDIA_GENERATION_SETTINGS = Symbol('MEDIA_GENERATION_SETTINGS');

export interface MediaGenerationSettings {
  /** How long a job may run from its creation before it fails. */
  jobDeadlineMs: number;
}

/** The endpoint each surface serves models on, as the catalogue lists them. */
const SURFACE_ENDPOINTS: Record<MediaSurface, ModelEndpoint> = {
  media: '/v1/media',
  images: '/v2/images/generations',
  speech: '/v1/media',
};

const MEDIA_TYPES: readonly string[] = ['image', 'video', 'audio'];

/** What a new generation is: asked for directly, or an operation on a finished one. */
interface NewGeneration {
  principal: Principal;
  generationId?: string;
  model: CatalogueModel;
  requestType: GenerationRequestType;
  surface: MediaSurface;
  async: boolean;
  params: Record<string, unknown>;
  warnings: string[];
  pricing: Pricing;
  externalUserId: string | null;
  parentId: string | null;
  operation: MediaOperation | null;
}

/** New media generations: asked for, or continuing a finished one; priced, held and handed to the job runner. */
@Injectable()
export class MediaGenerationService {
  constructor(
    private readonly generations: MediaGenerationRepository,
    private readonly catalogue: ModelCatalogue,
    private readonly holds: MediaHolds,
    private readonly results: MediaResults,
    private readonly runner: MediaJobRunner,
    @Inject(MEDIA_GENERATION_SETTINGS) private readonly settings: MediaGenerationSettings,
  ) {}

  async create(request: CreateMediaGenerationRequest): Promise<MediaGeneration> {
    const model = this.catalogue.servingModel(request.model, SURFACE_ENDPOINTS[request.surface]);
    const requestType = model.entry.type as GenerationRequestType;
    if (!MEDIA_TYPES.includes(requestType) || (request.surface === 'speech' && requestType !== 'audio')) {
      throw new DomainError('invalid_model', `The model ${request.model} is not a speech model`, 'model');
    }
    const checked = checkParams(model.entry.parameters, request.params, request.surface);
    return this.start({
      principal: request.principal,
      generationId: request.generationId,
      model,
      requestType,
      surface: request.surface,
      async: request.async,
      ...checked,
      pricing: model.routes[0].pricing,
      externalUserId: request.externalUserId ?? null,
      parentId: null,
      operation: null,
    });
  }

  /** A NEW generation continuing a completed one, which stays as it is. */
  async runOperation(request: RunMediaOperationRequest): Promise<MediaGeneration> {
    const original = await ownedGeneration(this.generations, request.principal, request.id);
    const model = this.catalogue.find(original.model);
    const operation = model?.entry.operations.find((candidate) => candidate.id === request.operation);
    if (!model || !operation) {
      throw new DomainError(
        'invalid_request',
        `The model ${original.model} does not support the operation ${request.operation}`,
        'operation',
      );
    }
    if (original.status !== 'completed') {
      throw new DomainError(
        'conflict',
        `Generation ${original.id} is ${original.status}, not completed`,
        'id',
      );
    }
    const checked = checkParams(operation.parameters, request.params, 'media');
    return this.start({
      principal: request.principal,
      model,
      requestType: original.requestType,
      surface: 'media',
      async: request.async,
      ...checked,
      pricing: operation.pricing,
      externalUserId: original.externalUserId,
      parentId: original.id,
      operation: request.operation,
    });
  }

  private async start(generation: NewGeneration): Promise<MediaGeneration> {
    const id = generation.generationId ?? `gen-${randomUUID()}`;
    const createdAt = new Date();
    const { principal, model, requestType } = generation;
    const price = mediaPrice(generation.pricing, requestType, generation.params);
    const responseMode = generation.async ? 'async' : 'sync';
    const hold = await this.holds.open(
      {
        generationId: id,
        principal,
        model: model.entry.id,
        modelDisplayName: model.entry.name,
        requestType,
        apiType: 'media',
        responseMode,
        startedAt: createdAt,
      },
      price,
    );
    let row: MediaGenerationEntity;
    try {
      row = await this.generations.insert({
        id,
        organizationId: principal.organizationId,
        apiKeyId: principal.kind === 'api_key' ? principal.apiKeyId : null,
        principal,
        model: model.entry.id,
        modelDisplayName: model.entry.name,
        requestType,
        surface: generation.surface,
        responseMode,
        parentId: generation.parentId,
        operation: generation.operation,
        externalUserId: generation.externalUserId,
        status: 'pending',
        params: generation.params,
        warnings: generation.warnings,
        price: price.toFixed(),
        reserved: hold.reserved.toFixed(),
        provider: model.routes[0]?.name ?? null,
        polls: 0,
        retries: 0,
        nextRunAt: createdAt,
        deadlineAt: new Date(createdAt.getTime() + this.settings.jobDeadlineMs),
        createdAt,
      });
    } catch (err) {
      // The same generation asked for again (a retried request): billing answered its hold, which is the first one's.
      const first = await this.generations.findOne(principal.organizationId, id);
      if (first) return this.results.view(first);
      await hold.fail(new DomainError('service_unavailable', 'The generation could not be stored'));
      throw err;
    }
    this.runner.wake();
    return this.results.view(row);
  }
}
