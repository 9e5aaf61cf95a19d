import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EmbeddingList } from '@gw/contracts';
import type { EmbeddingRpcMessageDto } from '@gw/dto';
import { costNumber, embeddingCost } from '@gw/pricing';
import { ModelCatalogue } from '@gw/catalogue';
import { GenerationBilling, traceModelCall, tryProvidersInOrder } from '@gw/paid-generation';
import {
  embeddingData,
  embeddingInputs,
  embeddingPromptBound,
  embeddingRoutes,
  maxEmbeddingCost,
  routesTakingInputs,
} from './embedding-plan';
import { OpenAiEmbeddingsAdapter } from './openai-embeddings.adapter';

/**
 * One embedding request: resolve the model (the alias notation does not apply, so `@` is part of
 * an unknown id), keep the providers that take `dimensions` and every input's length, reserve the
 * cost of an upper bound of the input tokens, call the providers in
 * order until one answers, and settle through the durable finished event whatever the outcome.
 */
@Injectable()
export class EmbeddingsService {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly adapter: OpenAiEmbeddingsAdapter,
    private readonly billing: GenerationBilling,
  ) {}

  async create(request: EmbeddingRpcMessageDto): Promise<EmbeddingList> {
    const { body } = request;
    const model = this.catalogue.servingModel(body.model, '/v1/embeddings');
    const routes = routesTakingInputs(model, embeddingRoutes(model, body.dimensions), body.input);
    const inputs = embeddingInputs(body.input);
    const promptBound = embeddingPromptBound(inputs);
    // The input is known in full, so the least and the most the request may cost are the same bound.
    const amount = maxEmbeddingCost(routes, promptBound);
    const hold = await this.billing.open(
      {
        generationId: request.generationId ?? `gen-${randomUUID()}`,
        principal: request.principal,
        model: model.entry.id,
        modelDisplayName: model.entry.name,
        requestType: 'embedding',
        apiType: 'embeddings',
        responseMode: 'sync',
        startedAt: new Date(),
      },
      { maxAmount: amount, minAmount: amount },
    );

    const end = await tryProvidersInOrder({ routes, attempts: hold.attempts }, async (route) => {
      const trace = traceModelCall('embeddings', route, {});
      try {
        // An embedding is short and charged only once it is complete, so a client leaving does not abort it.
        const embedded = await this.adapter.embed({
          baseUrl: route.baseUrl,
          apiKey: route.apiKey,
          request: {
            model: route.upstreamModel,
            input: inputs,
            ...(body.dimensions !== undefined ? { dimensions: body.dimensions } : {}),
            ...(body.user !== undefined ? { user: body.user } : {}),
          },
        });
        const promptTokens = embedded.promptTokens ?? promptBound;
        trace.ended({
          kind: 'finished',
          finishReason: 'stop',
          usage: { prompt_tokens: promptTokens, completion_tokens: 0 },
        });
        return embedded;
      } catch (err) {
        trace.failed(err);
        throw err;
      }
    });
    if (end.outcome === 'exhausted') throw await hold.fail(end.failure);
    const { route, value: result } = end;
    hold.markFirstOutput();
    // A provider that reports no usage is charged for the bound that was reserved.
    const promptTokens = result.promptTokens ?? promptBound;
    const cost = hold.capped(embeddingCost(route.pricing, promptTokens));
    const usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens };
    await hold.finish({
      status: 'completed',
      provider: route.name,
      finishReason: 'stop',
      usage,
      cost,
      error: null,
    });
    const rub = costNumber(cost);
    return {
      id: hold.generationId,
      object: 'list',
      data: embeddingData(result.vectors, body.encoding_format ?? 'float'),
      model: model.entry.id,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, cost_rub: rub, cost: rub },
    };
  }
}
