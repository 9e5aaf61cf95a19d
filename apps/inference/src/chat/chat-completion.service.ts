import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Observable, Subscriber } from 'rxjs';
import { ChatCompletion, DomainError, GenerationResponseMode } from '@gw/contracts';
import type { ChatCompletionRpcMessageDto } from '@gw/dto';
import type { ProviderRoute } from '@gw/catalogue';
import { ModelCatalogue } from '@gw/catalogue';
import type { Answered } from '@gw/paid-generation';
import { GenerationBilling, traceModelCall, tryProvidersInOrder } from '@gw/paid-generation';
import { ChatAdapters } from '../providers/chat-adapters';
import type { UpstreamAbort } from '../providers/upstream-abort';
import { ChatGeneration, ChatStreamItem, usageWithCost } from './chat-generation';
import { AnswerParts } from './answer-parts';
import { completionCeiling, toUpstreamRequest } from './chat-plan';
import { planChatRequest } from './chat-request-plan';
import { ChatStreamChunks } from './chat-stream-chunks';
import { awaitFirstOutput } from './first-output';
import { GenerationCancellations } from './generation-cancellations';
import { HoldEstimates } from './hold-estimates';
import {
  type AnswerEnd,
  type AnswerOutput,
  type OpenedAnswer,
  PaidAnswer,
  reportCancelled,
} from './paid-answer';

export const CHAT_SETTINGS = Symbol('CHAT_SETTINGS');
export interface ChatSettings {
  /** The least completion a first hold covers (less where the model's answers have been shorter); a balance that cannot is refused with 402. */
  minCompletionTokens: number;
  /** The completion a first hold covers for a model this process has not seen answer yet. */
  firstHoldCompletionTokens: number;
  /** A stream's wait for its first output before the next provider is tried, unless the catalogue sets one. */
  firstTokenTimeoutMs: number;
}

const cancelledError = () => new DomainError('upstream_error', 'The generation was cancelled');

/**
 * One chat generation: resolve the model, hold about what it will cost, call the providers in
 * order until one answers, read the answer against the hold (PaidAnswer), and report the outcome as
 * a durable GenerationFinishedEvent whatever it is.
 */
@Injectable()
export class ChatCompletionService {
  private readonly holdEstimates: HoldEstimates;

  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly adapters: ChatAdapters,
    private readonly billing: GenerationBilling,
    private readonly cancellations: GenerationCancellations,
    @Inject(CHAT_SETTINGS) private readonly settings: ChatSettings,
  ) {
    this.holdEstimates = new HoldEstimates(settings.firstHoldCompletionTokens, settings.minCompletionTokens);
  }

  async complete(request: ChatCompletionRpcMessageDto): Promise<ChatCompletion> {
    const id = request.generationId ?? `gen-${randomUUID()}`;
    const cancellation = this.cancellations.open(id);
    try {
      return await this.runComplete(request, id, cancellation);
    } finally {
      this.cancellations.close(id);
    }
  }

  stream(request: ChatCompletionRpcMessageDto): Observable<ChatStreamItem> {
    return new Observable<ChatStreamItem>((subscriber) => {
      const id = request.generationId ?? `gen-${randomUUID()}`;
      const cancellation = this.cancellations.open(id);
      this.runStream(request, id, subscriber, cancellation)
        .catch((err: unknown) => subscriber.error(err))
        .finally(() => this.cancellations.close(id));
      return () => cancellation.abort();
    });
  }

  private async runComplete(
    request: ChatCompletionRpcMessageDto,
    id: string,
    signal: UpstreamAbort,
  ): Promise<ChatCompletion> {
    const generation = await this.begin(request, 'sync', id);
    // A plain answer is read as a stream too, so that its hold grows with it (see PaidAnswer).
    const end = await tryProvidersInOrder(
      { routes: generation.routes, attempts: generation.hold.attempts },
      (route) => this.openAnswer(generation, route, signal, null),
      { signal, closesAttempt: false },
    );
    if (end.outcome === 'cancelled') {
      await reportCancelled(generation, end.route, null, generation.promptEstimate, '', null);
      throw cancelledError();
    }
    if (end.outcome === 'exhausted') throw await generation.hold.fail(end.failure);
    const parts = new AnswerParts();
    const answer = await this.read(generation, end, signal, (event) => parts.add(event));
    if (answer.kind === 'cancelled') throw cancelledError();
    if (answer.kind === 'broken') throw answer.error;
    await generation.hold.finish(answer.outcome);
    const toolCalls = parts.toolCalls;
    return {
      id: generation.id,
      object: 'chat.completion',
      created: Math.floor(generation.hold.context.startedAt.getTime() / 1000),
      model: generation.model.entry.id,
      provider: end.route.name,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: parts.content,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            ...parts.reasoning,
          },
          finish_reason: answer.finishReason,
        },
      ],
      usage: usageWithCost(answer.usage, answer.cost),
    };
  }

  private async runStream(
    request: ChatCompletionRpcMessageDto,
    id: string,
    subscriber: Subscriber<ChatStreamItem>,
    signal: UpstreamAbort,
  ): Promise<void> {
    const generation = await this.begin(request, 'stream', id);
    // The attempt that answers stays open while its stream is relayed: PaidAnswer records it at the end.
    const end = await tryProvidersInOrder(
      { routes: generation.routes, attempts: generation.hold.attempts },
      (route) =>
        this.openAnswer(
          generation,
          route,
          signal,
          route.firstTokenTimeoutMs ?? this.settings.firstTokenTimeoutMs,
        ),
      { signal, closesAttempt: false },
    );
    if (end.outcome === 'cancelled') {
      await reportCancelled(generation, end.route, null, generation.promptEstimate, '', null);
      // Over NATS nobody listens any more; completing releases the server side of the stream.
      return subscriber.complete();
    }
    if (end.outcome === 'exhausted') return subscriber.error(await generation.hold.fail(end.failure));
    const chunks = new ChatStreamChunks(generation, end.route, subscriber);
    const answer = await this.read(generation, end, signal, (event, promptTokens) =>
      chunks.delta(event, promptTokens),
    );
    if (answer.kind === 'cancelled') return subscriber.complete();
    if (answer.kind === 'broken') return chunks.brokenOff(answer.error, answer.usage, answer.cost);
    chunks.last(answer.finishReason, answer.usage, answer.cost);
    await generation.hold.finish(answer.outcome);
    subscriber.complete();
  }

  /**
   * Starts one provider's answer as a stream and waits for its first output, within the
   * first-token deadline where there is one (a plain request's answer has none: it is bounded by
   * the upstream timeout, as it was when read whole).
   */
  private async openAnswer(
    generation: ChatGeneration,
    route: ProviderRoute,
    signal: UpstreamAbort,
    firstTokenDeadlineMs: number | null,
  ): Promise<OpenedAnswer> {
    const attemptAbort = signal.attempt();
    const stop = () => attemptAbort.abort();
    const call = {
      baseUrl: route.baseUrl,
      apiKey: route.apiKey,
      request: toUpstreamRequest(
        route,
        generation.body,
        generation.messages,
        completionCeiling(route, generation.clientMax),
      ),
      signal: attemptAbort,
    };
    const trace = traceModelCall('chat', route, call.request);
    const iterator = this.adapters.for(route.wire).stream(call)[Symbol.asyncIterator]();
    try {
      const head = await awaitFirstOutput(iterator, firstTokenDeadlineMs, stop);
      return { iterator, head, stop, trace };
    } catch (err) {
      trace.failed(err);
      throw err;
    }
  }

  /** Reads the answering provider's answer against the hold, learning its counts as it goes. */
  private async read(
    generation: ChatGeneration,
    end: Answered<ProviderRoute, OpenedAnswer>,
    signal: UpstreamAbort,
    output: AnswerOutput,
  ): Promise<AnswerEnd> {
    const counts = this.holdEstimates.of(
      generation.model.entry.id,
      end.route.name,
      generation.promptTextWidth,
    );
    const answer = await new PaidAnswer(generation, end.route, counts).read(
      end.value,
      end.started,
      signal,
      output,
    );
    end.value.trace.ended(answer);
    return answer;
  }

  /** Plans the generation and opens its hold: a refused reservation (402 and the like) ends it here. */
  private async begin(
    request: ChatCompletionRpcMessageDto,
    responseMode: GenerationResponseMode,
    id: string,
  ): Promise<ChatGeneration> {
    const plan = planChatRequest(this.catalogue, this.holdEstimates, request, responseMode, id);
    const { model } = plan.generation;
    const hold = await this.billing.open(
      {
        generationId: id,
        principal: request.principal,
        model: model.entry.id,
        modelDisplayName: model.entry.name,
        requestType: 'chat',
        apiType: request.apiType,
        responseMode,
        startedAt: new Date(),
      },
      plan.firstHold,
    );
    return { ...plan.generation, hold };
  }
}
