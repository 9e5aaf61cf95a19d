import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { Observable, Subscriber } from 'rxjs';
import { applyModelAlias, ModelAliasError, parseModelAlias } from '@gw/alias';
import { ChatCompletion, ChatCompletionChunk, DomainError, GenerationResponseMode } from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatCompletionRpcMessageDto } from '@gw/dto';
import { costNumber } from '@gw/pricing';
import type { ProviderRoute } from '@gw/catalogue';
import { endpointOfApiType, ModelCatalogue } from '@gw/catalogue';
import type { GenerationOutcome, UpstreamFailure } from '@gw/paid-generation';
import {
  GenerationBilling,
  recordAttempt,
  toUpstreamFailure,
  tryProvidersInOrder,
  upstreamDomainError,
} from '@gw/paid-generation';
import { ChatAdapters } from '../providers/chat-adapters';
import type { UpstreamStreamEvent, UpstreamUsage } from '../providers/upstream-chat';
import {
  BLOCKED_ERROR,
  ChatGeneration,
  ChatStreamItem,
  completionCost,
  billedGeneration,
  isBlockedWithoutOutput,
  producedUsageAndCost,
  tokenUsage,
  usageOrEstimate,
} from './chat-generation';
import {
  clientMaxTokens,
  conversation,
  promptTokensEstimate,
  promptTokensUpperBound,
  reservationAmounts,
  toUpstreamRequest,
  upstreamMaxTokens,
  withReasoningEffort,
} from './chat-plan';
import { awaitFirstOutput, FirstOutput } from './first-output';
import { GenerationCancellations } from './generation-cancellations';
import { planRoutes } from './routing';

export const CHAT_SETTINGS = Symbol('CHAT_SETTINGS');
export interface ChatSettings {
  minCompletionTokens: number;
  /** A stream's wait for its first output before the next provider is tried, unless the catalogue sets one. */
  firstTokenTimeoutMs: number;
}

/** The chat-style endpoints on which the model alias notation is accepted. */
const ALIAS_API_TYPES = new Set(['chat_completions', 'responses', 'messages']);

type Chunk = ChatCompletionChunk;

/**
 * One chat generation: resolve the model, reserve its maximum cost, call the providers in order
 * until one answers, and report the outcome as a durable GenerationFinishedEvent whatever it is.
 */
@Injectable()
export class ChatCompletionService {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly adapters: ChatAdapters,
    private readonly billing: GenerationBilling,
    private readonly cancellations: GenerationCancellations,
    @Inject(CHAT_SETTINGS) private readonly settings: ChatSettings,
  ) {}

  async complete(request: ChatCompletionRpcMessageDto): Promise<ChatCompletion> {
    const id = request.generationId ?? `gen-${randomUUID()}`;
    const cancellation = this.cancellations.open(id);
    try {
      return await this.runComplete(request, id, cancellation.signal);
    } finally {
      this.cancellations.close(id);
    }
  }

  stream(request: ChatCompletionRpcMessageDto): Observable<ChatStreamItem> {
    return new Observable<ChatStreamItem>((subscriber) => {
      const id = request.generationId ?? `gen-${randomUUID()}`;
      const cancellation = this.cancellations.open(id);
      this.runStream(request, id, subscriber, cancellation.signal)
        .catch((err: unknown) => subscriber.error(err))
        .finally(() => this.cancellations.close(id));
      return () => cancellation.abort();
    });
  }

  private async runComplete(
    request: ChatCompletionRpcMessageDto,
    id: string,
    signal: AbortSignal,
  ): Promise<ChatCompletion> {
    const generation = await this.begin(request, 'sync', id);
    const end = await tryProvidersInOrder(
      generation,
      (route) => this.adapters.for(route.wire).complete(this.call(generation, route, signal)),
      { signal },
    );
    if (end.outcome === 'cancelled') {
      await this.cancelled(generation, end.route, null, generation.promptEstimate, '', null);
      throw new DomainError('upstream_error', 'The generation was cancelled');
    }
    if (end.outcome === 'exhausted')
      throw await this.billing.failed(billedGeneration(generation), end.failure);
    const { route, value: result } = end;
    generation.firstOutputAt = Date.now();
    const text = (result.content ?? '') + result.toolCalls.map((call) => call.function.arguments).join('');
    const usage = usageOrEstimate(result.usage, generation.promptEstimate, text);
    const blocked = isBlockedWithoutOutput(result.finishReason, text);
    const cost = blocked ? new Decimal(0) : completionCost(route, usage, generation.reserved);
    await this.finish(generation, {
      status: blocked ? 'failed' : 'completed',
      provider: route.name,
      finishReason: result.finishReason,
      usage: tokenUsage(usage),
      cost,
      error: blocked ? { ...BLOCKED_ERROR } : null,
    });
    return {
      id: generation.id,
      object: 'chat.completion',
      created: Math.floor(generation.startedAt.getTime() / 1000),
      model: generation.model.entry.id,
      provider: route.name,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: result.content,
            ...(result.toolCalls.length > 0 ? { tool_calls: result.toolCalls } : {}),
          },
          finish_reason: result.finishReason,
        },
      ],
      usage: this.usageWithCost(usage, cost),
    };
  }

  private async runStream(
    request: ChatCompletionRpcMessageDto,
    id: string,
    subscriber: Subscriber<ChatStreamItem>,
    signal: AbortSignal,
  ): Promise<void> {
    const generation = await this.begin(request, 'stream', id);
    // The attempt that answers stays open while its stream is relayed: relay() records it at the end.
    const end = await tryProvidersInOrder(generation, (route) => this.openStream(generation, route, signal), {
      signal,
      closesAttempt: false,
    });
    if (end.outcome === 'cancelled')
      return this.cancelled(generation, end.route, null, generation.promptEstimate, '', null, subscriber);
    if (end.outcome === 'exhausted') {
      subscriber.error(await this.billing.failed(billedGeneration(generation), end.failure));
      return;
    }
    const { iterator, head } = end.value;
    return this.relay(generation, end.route, end.started, iterator, head, subscriber, signal);
  }

  /** Starts one provider's stream and waits for its first output, within the first-token deadline. */
  private async openStream(
    generation: ChatGeneration,
    route: ProviderRoute,
    signal: AbortSignal,
  ): Promise<{ iterator: AsyncIterator<UpstreamStreamEvent>; head: FirstOutput }> {
    const attemptAbort = new AbortController();
    const call = this.call(generation, route, AbortSignal.any([signal, attemptAbort.signal]));
    const iterator = this.adapters.for(route.wire).stream(call)[Symbol.asyncIterator]();
    const head = await awaitFirstOutput(
      iterator,
      route.firstTokenTimeoutMs ?? this.settings.firstTokenTimeoutMs,
      () => attemptAbort.abort(),
    );
    return { iterator, head };
  }

  /** Forwards one provider's stream; output has started, so from here on a failure cannot fall back. */
  private async relay(
    generation: ChatGeneration,
    route: ProviderRoute,
    started: number,
    iterator: AsyncIterator<UpstreamStreamEvent>,
    head: FirstOutput,
    subscriber: Subscriber<ChatStreamItem>,
    signal: AbortSignal,
  ): Promise<void> {
    generation.firstOutputAt = Date.now();
    const chunk = (choice: Chunk['choices'][number], usage?: Chunk['usage']): Chunk => ({
      id: generation.id,
      object: 'chat.completion.chunk',
      created: Math.floor(generation.startedAt.getTime() / 1000),
      model: generation.model.entry.id,
      provider: route.name,
      choices: [choice],
      ...(usage ? { usage } : {}),
    });
    let text = '';
    let finishReason: string | null = null;
    let usage: UpstreamUsage | null = null;
    let promptTokens = generation.promptEstimate;
    let roleSent = false;
    const send = (item: Chunk) => subscriber.next({ chunk: item, promptTokens });
    const forward = (event: UpstreamStreamEvent) => {
      if (event.promptTokens !== undefined) promptTokens = event.promptTokens;
      if (event.finishReason) finishReason = event.finishReason;
      if (event.usage) usage = event.usage;
      if (!event.content && !event.toolCalls) return;
      text +=
        (event.content ?? '') +
        (event.toolCalls ?? []).map((call) => call.function?.arguments ?? '').join('');
      const delta: Chunk['choices'][number]['delta'] = {
        ...(roleSent ? {} : { role: 'assistant' as const }),
        ...(event.content ? { content: event.content } : {}),
        ...(event.toolCalls ? { tool_calls: event.toolCalls } : {}),
      };
      roleSent = true;
      send(chunk({ index: 0, delta, finish_reason: null }));
    };
    try {
      head.events.forEach(forward);
      if (!head.done) {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) forward(next.value);
      }
    } catch (err) {
      const failure = toUpstreamFailure(err);
      recordAttempt(generation.attempts, route, started, failure, signal.aborted);
      if (signal.aborted)
        return this.cancelled(generation, route, usage, promptTokens, text, finishReason, subscriber);
      subscriber.error(await this.brokenOff(generation, route, failure, usage, promptTokens, text));
      return;
    }
    recordAttempt(generation.attempts, route, started, null);
    const final = usageOrEstimate(usage, promptTokens, text);
    const reason: string = finishReason ?? 'stop';
    const blocked = isBlockedWithoutOutput(reason, text);
    const cost = blocked ? new Decimal(0) : completionCost(route, final, generation.reserved);
    send(
      chunk(
        { index: 0, delta: roleSent ? {} : { role: 'assistant', content: '' }, finish_reason: reason },
        this.usageWithCost(final, cost),
      ),
    );
    await this.finish(generation, {
      status: blocked ? 'failed' : 'completed',
      provider: route.name,
      finishReason: reason,
      usage: tokenUsage(final),
      cost,
      error: blocked ? { ...BLOCKED_ERROR } : null,
    });
    subscriber.complete();
  }

  private async begin(
    request: ChatCompletionRpcMessageDto,
    responseMode: GenerationResponseMode,
    id: string,
  ): Promise<ChatGeneration> {
    const endpoint = endpointOfApiType(request.apiType);
    if (!endpoint) throw new DomainError('invalid_request', `Unknown apiType ${request.apiType}`, 'apiType');
    const body = this.withAlias(request);
    const model = this.catalogue.servingModel(body.model, endpoint);
    const messages = conversation(body);
    const promptEstimate = promptTokensEstimate(messages, body);
    const { routes } = planRoutes(model, body, {
      promptTokens: promptEstimate,
      preferencesParam: this.providerFromAlias(request) ? 'model' : 'provider',
    });
    const promptBound = promptTokensUpperBound(messages, body);
    const clientMax = clientMaxTokens(body);
    const generation: ChatGeneration = {
      id,
      request,
      body,
      responseMode,
      model,
      routes,
      messages,
      promptBound,
      promptEstimate,
      clientMax,
      reserved: new Decimal(0),
      startedAt: new Date(),
      firstOutputAt: null,
      attempts: [],
    };
    const amounts = reservationAmounts(routes, promptBound, clientMax, this.settings.minCompletionTokens);
    generation.reserved = await this.billing.reserve(
      billedGeneration(generation),
      amounts.maxAmount,
      amounts.minAmount,
    );
    return generation;
  }

  /** The body as if the alias had been written as body fields; other endpoints take `@` literally (an unknown model). */
  private withAlias(request: ChatCompletionRpcMessageDto): ChatCompletionRequestDto {
    const body = withReasoningEffort(request.body);
    if (!ALIAS_API_TYPES.has(request.apiType)) return body;
    try {
      return applyModelAlias(
        body as ChatCompletionRequestDto & {
          provider?: Record<string, unknown>;
          reasoning?: Record<string, unknown>;
        },
      );
    } catch (err) {
      if (err instanceof ModelAliasError) throw new DomainError('invalid_request', err.message, 'model');
      throw err;
    }
  }

  /** Whether `provider.only` is the alias's `provider=`: the body cannot also set it, the alias refuses that. */
  private providerFromAlias(request: ChatCompletionRpcMessageDto): boolean {
    return ALIAS_API_TYPES.has(request.apiType) && parseModelAlias(request.body.model).provider !== undefined;
  }

  private call(generation: ChatGeneration, route: ProviderRoute, signal: AbortSignal) {
    const maxTokens = upstreamMaxTokens(
      route,
      generation.promptBound,
      generation.clientMax,
      generation.reserved,
    );
    return {
      baseUrl: route.baseUrl,
      apiKey: route.apiKey,
      request: toUpstreamRequest(route, generation.body, generation.messages, maxTokens),
      signal,
    };
  }

  /** The provider broke off after output: the answer failed, but what it produced was paid for, so it is charged. */
  private async brokenOff(
    generation: ChatGeneration,
    route: ProviderRoute,
    failure: UpstreamFailure,
    usage: UpstreamUsage | null,
    promptTokens: number,
    text: string,
  ): Promise<DomainError> {
    const error = upstreamDomainError(failure, true);
    const produced = producedUsageAndCost(route, usage, promptTokens, text, generation.reserved);
    await this.finish(generation, {
      status: 'failed',
      provider: route.name,
      finishReason: null,
      usage: tokenUsage(produced.usage),
      cost: produced.cost,
      error: { code: error.code, message: error.message },
    });
    return error;
  }

  /**
   * The client went away: what the provider produced so far is charged, as it was paid for. The
   * provider's finish reason is kept where it gave one before the end; billing records `cancelled` otherwise.
   */
  private async cancelled(
    generation: ChatGeneration,
    route: ProviderRoute,
    usage: UpstreamUsage | null,
    promptTokens: number,
    text: string,
    providerFinishReason: string | null,
    subscriber?: Subscriber<ChatStreamItem>,
  ): Promise<void> {
    const produced = producedUsageAndCost(route, usage, promptTokens, text, generation.reserved);
    await this.finish(generation, {
      status: 'cancelled',
      provider: route.name,
      finishReason: providerFinishReason,
      usage: tokenUsage(produced.usage),
      cost: produced.cost,
      error: null,
    });
    // Over NATS nobody listens any more; completing releases the server side of the stream.
    subscriber?.complete();
  }

  private finish(generation: ChatGeneration, outcome: GenerationOutcome): Promise<void> {
    return this.billing.finish(billedGeneration(generation), outcome);
  }

  private usageWithCost(usage: UpstreamUsage, cost: Decimal): ChatCompletion['usage'] {
    const rub = costNumber(cost);
    return { ...tokenUsage(usage), cost_rub: rub, cost: rub };
  }
}
