import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { Observable, Subscriber } from 'rxjs';
import { applyModelAlias, ModelAliasError, parseModelAlias } from '@gw/alias';
import { ChatCompletion, ChatCompletionChunk, DomainError, GenerationResponseMode } from '@gw/contracts';
import type { ChatCompletionRequestDto, ChatCompletionRpcMessageDto } from '@gw/dto';
import { affordableCompletionTokens, costNumber, generationCost } from '@gw/pricing';
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
import type { UpstreamAbort } from '../providers/upstream-abort';
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
import { AnswerParts } from './answer-parts';
import {
  clientMaxTokens,
  completionCeiling,
  conversation,
  promptTextWidth,
  promptTokensEstimate,
  toUpstreamRequest,
  withReasoningEffort,
} from './chat-plan';
import { awaitFirstOutput, FirstOutput } from './first-output';
import { GenerationCancellations } from './generation-cancellations';
import { HoldEstimates } from './hold-estimates';
import { holdNeeds, initialHold } from './hold-sizing';
import { planRoutes } from './routing';
import { TokenTally } from './token-estimate';

export const CHAT_SETTINGS = Symbol('CHAT_SETTINGS');
export interface ChatSettings {
  /** The least completion a first hold covers (less where the model's answers have been shorter); a balance that cannot is refused with 402. */
  minCompletionTokens: number;
  /** The completion a first hold covers for a model this process has not seen answer yet. */
  firstHoldCompletionTokens: number;
  /** A stream's wait for its first output before the next provider is tried, unless the catalogue sets one. */
  firstTokenTimeoutMs: number;
}

/** The chat-style endpoints on which the model alias notation is accepted. */
const ALIAS_API_TYPES = new Set(['chat_completions', 'responses', 'messages']);

type Chunk = ChatCompletionChunk;

/** A provider's answer, opened: its events so far up to the first output, the rest to read, and how to stop it. */
interface OpenedAnswer {
  iterator: AsyncIterator<UpstreamStreamEvent>;
  head: FirstOutput;
  /** Aborts the upstream call, when the hold cannot pay for more. */
  stop: () => void;
}

/** How reading an answer ended: finished (still to be reported), or cancelled or broken off (already reported). */
type AnswerEnd =
  | {
      kind: 'finished';
      finishReason: string;
      usage: UpstreamUsage;
      cost: Decimal;
      outcome: GenerationOutcome;
    }
  | { kind: 'cancelled' }
  | { kind: 'broken'; error: DomainError; usage: UpstreamUsage; cost: Decimal };

/**
 * One chat generation: resolve the model, hold about what it will cost, call the providers in
 * order until one answers, grow the hold as the answer does, and report the outcome as a durable
 * GenerationFinishedEvent whatever it is.
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
    // A plain answer is read as a stream too, so that its hold grows with it (see readAnswer).
    const end = await tryProvidersInOrder(
      generation,
      (route) => this.openAnswer(generation, route, signal, null),
      {
        signal,
        closesAttempt: false,
      },
    );
    if (end.outcome === 'cancelled') {
      await this.cancelled(generation, end.route, null, generation.promptEstimate, '', null);
      throw new DomainError('upstream_error', 'The generation was cancelled');
    }
    if (end.outcome === 'exhausted')
      throw await this.billing.failed(billedGeneration(generation), end.failure);
    const { route } = end;
    const parts = new AnswerParts();
    const answer = await this.readAnswer(generation, route, end.started, end.value, signal, (event) =>
      parts.add(event),
    );
    if (answer.kind === 'cancelled') throw new DomainError('upstream_error', 'The generation was cancelled');
    if (answer.kind === 'broken') throw answer.error;
    await this.finish(generation, answer.outcome);
    const toolCalls = parts.toolCalls;
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
            content: parts.content,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: answer.finishReason,
        },
      ],
      usage: this.usageWithCost(answer.usage, answer.cost),
    };
  }

  private async runStream(
    request: ChatCompletionRpcMessageDto,
    id: string,
    subscriber: Subscriber<ChatStreamItem>,
    signal: UpstreamAbort,
  ): Promise<void> {
    const generation = await this.begin(request, 'stream', id);
    // The attempt that answers stays open while its stream is relayed: readAnswer() records it at the end.
    const end = await tryProvidersInOrder(
      generation,
      (route) =>
        this.openAnswer(
          generation,
          route,
          signal,
          route.firstTokenTimeoutMs ?? this.settings.firstTokenTimeoutMs,
        ),
      { signal, closesAttempt: false },
    );
    if (end.outcome === 'cancelled')
      return this.cancelled(generation, end.route, null, generation.promptEstimate, '', null, subscriber);
    if (end.outcome === 'exhausted') {
      subscriber.error(await this.billing.failed(billedGeneration(generation), end.failure));
      return;
    }
    const { route } = end;
    const chunk = (choices: Chunk['choices'], usage?: Chunk['usage']): Chunk => ({
      id: generation.id,
      object: 'chat.completion.chunk',
      created: Math.floor(generation.startedAt.getTime() / 1000),
      model: generation.model.entry.id,
      provider: route.name,
      choices,
      ...(usage ? { usage } : {}),
    });
    let roleSent = false;
    const answer = await this.readAnswer(
      generation,
      route,
      end.started,
      end.value,
      signal,
      (event, promptTokens) => {
        const delta: Chunk['choices'][number]['delta'] = {
          ...(roleSent ? {} : { role: 'assistant' as const }),
          ...(event.content ? { content: event.content } : {}),
          ...(event.toolCalls ? { tool_calls: event.toolCalls } : {}),
        };
        roleSent = true;
        subscriber.next({ chunk: chunk([{ index: 0, delta, finish_reason: null }]), promptTokens });
      },
    );
    if (answer.kind === 'cancelled') {
      // Over NATS nobody listens any more; completing releases the server side of the stream.
      subscriber.complete();
      return;
    }
    if (answer.kind === 'broken') {
      // What was produced before the cut is charged, so the stream says how much before its error event.
      subscriber.next({
        chunk: chunk([], this.usageWithCost(answer.usage, answer.cost)),
        promptTokens: answer.usage.prompt_tokens,
      });
      subscriber.error(answer.error);
      return;
    }
    subscriber.next({
      chunk: chunk(
        [
          {
            index: 0,
            delta: roleSent ? {} : { role: 'assistant', content: '' },
            finish_reason: answer.finishReason,
          },
        ],
        this.usageWithCost(answer.usage, answer.cost),
      ),
      promptTokens: answer.usage.prompt_tokens,
    });
    await this.finish(generation, answer.outcome);
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
    const call = this.call(generation, route, attemptAbort);
    const iterator = this.adapters.for(route.wire).stream(call)[Symbol.asyncIterator]();
    const head = await awaitFirstOutput(iterator, firstTokenDeadlineMs, stop);
    return { iterator, head, stop };
  }

  /**
   * Reads one provider's answer to its end; output has started, so from here on a failure cannot
   * fall back. Each piece of output is passed on only once the hold pays for it: when it does not,
   * billing is asked to grow the hold (readAnswer's one pause), and where the balance or a limit
   * has nothing left the upstream call is stopped and the answer ends as `length`, charged for
   * what was passed on. A cancelled or broken answer is reported here; a finished one is left to
   * the caller, who reports it once the client has its last part.
   */
  private async readAnswer(
    generation: ChatGeneration,
    route: ProviderRoute,
    started: number,
    answer: OpenedAnswer,
    signal: UpstreamAbort,
    output: (event: UpstreamStreamEvent, promptTokens: number) => void,
  ): Promise<AnswerEnd> {
    generation.firstOutputAt = Date.now();
    const ceilingTokens = completionCeiling(route, generation.clientMax);
    const counts = this.holdEstimates.of(generation.model.entry.id, route.name, generation.promptTextWidth);
    const produced = new TokenTally();
    let text = '';
    let finishReason: string | null = null;
    let usage: UpstreamUsage | null = null;
    let promptTokens = generation.promptEstimate;
    let heldPrompt = generation.heldPromptTokens;
    let outOfFunds = false;
    // The answer's length the hold is known to pay for: pieces within it skip pricing.
    let paidTokens = -1;
    const take = async (event: UpstreamStreamEvent): Promise<void> => {
      if (event.promptTokens !== undefined) {
        promptTokens = heldPrompt = event.promptTokens;
        paidTokens = -1;
      }
      if (event.finishReason) finishReason = event.finishReason;
      if (event.usage) usage = event.usage;
      if (!event.content && !event.toolCalls) return;
      const piece =
        (event.content ?? '') +
        (event.toolCalls ?? []).map((call) => call.function?.arguments ?? '').join('');
      produced.add(piece);
      // The provider's count of the answer so far, as learned from its earlier answers: what the hold must pay for.
      const producedTokens = counts.completionTokens(produced.tokens);
      if (producedTokens > paidTokens) {
        if (!(await this.holdPays(generation, route, heldPrompt, producedTokens, ceilingTokens))) {
          outOfFunds = true;
          return;
        }
        paidTokens = affordableCompletionTokens(route.pricing, heldPrompt, generation.reserved);
      }
      text += piece;
      output(event, promptTokens);
    };
    try {
      for (const event of answer.head.events) {
        await take(event);
        if (outOfFunds) break;
      }
      if (!answer.head.done) {
        while (!outOfFunds) {
          const next = await answer.iterator.next();
          if (next.done) break;
          await take(next.value);
        }
      }
    } catch (err) {
      const failure = toUpstreamFailure(err);
      recordAttempt(generation.attempts, route, started, failure, signal.aborted);
      if (signal.aborted) {
        await this.cancelled(generation, route, usage, promptTokens, text, finishReason);
        return { kind: 'cancelled' };
      }
      return {
        kind: 'broken',
        ...(await this.brokenOff(generation, route, failure, usage, promptTokens, text)),
      };
    }
    if (outOfFunds) {
      answer.stop();
      usage = null;
    }
    recordAttempt(generation.attempts, route, started, null);
    const final = usageOrEstimate(usage, promptTokens, text);
    const reason: string = outOfFunds ? 'length' : (finishReason ?? 'stop');
    const blocked = isBlockedWithoutOutput(reason, text);
    if (!blocked && !outOfFunds) {
      await this.holdCovers(generation, generationCost(route.pricing, final));
      counts.record({
        promptEstimate: generation.promptEstimate,
        messages: generation.messages.length,
        answerTally: produced.tokens,
        provider:
          usage === null
            ? null
            : { promptTokens: final.prompt_tokens, completionTokens: final.completion_tokens },
      });
    }
    const cost = blocked ? new Decimal(0) : completionCost(route, final, generation.reserved);
    return {
      kind: 'finished',
      finishReason: reason,
      usage: final,
      cost,
      outcome: {
        status: blocked ? 'failed' : 'completed',
        provider: route.name,
        finishReason: reason,
        usage: tokenUsage(final),
        cost,
        error: blocked ? { ...BLOCKED_ERROR } : null,
      },
    };
  }

  /**
   * Whether the hold pays for the answer so far (the prompt and `producedTokens`); when it does not,
   * billing is asked to grow it, with room for the answer to double so that a long one asks rarely.
   */
  private async holdPays(
    generation: ChatGeneration,
    route: ProviderRoute,
    promptTokens: number,
    producedTokens: number,
    ceilingTokens: number,
  ): Promise<boolean> {
    const { needed, target } = holdNeeds(route, promptTokens, producedTokens, ceilingTokens);
    if (needed.lessThanOrEqualTo(generation.reserved)) return true;
    await this.growHold(generation, target);
    return needed.lessThanOrEqualTo(generation.reserved);
  }

  /**
   * The provider's usage may cost more than the estimates the hold grew by (its tokenizer counts
   * differently): the hold is grown to the cost where the balance allows, since the charge is
   * capped by the hold.
   */
  private async holdCovers(generation: ChatGeneration, cost: Decimal): Promise<void> {
    if (cost.greaterThan(generation.reserved)) await this.growHold(generation, cost);
  }

  private async growHold(generation: ChatGeneration, target: Decimal): Promise<void> {
    generation.reserved = await this.billing.extend(
      billedGeneration(generation),
      generation.reserved,
      target.minus(generation.reserved).toDecimalPlaces(8, Decimal.ROUND_UP),
    );
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
    const clientMax = clientMaxTokens(body);
    const textWidth = promptTextWidth(messages, body);
    const counts = this.holdEstimates.of(model.entry.id, routes[0].name, textWidth);
    const generation: ChatGeneration = {
      id,
      request,
      body,
      responseMode,
      model,
      routes,
      messages,
      promptEstimate,
      heldPromptTokens: counts.promptTokens(promptEstimate, messages.length),
      promptTextWidth: textWidth,
      clientMax,
      reserved: new Decimal(0),
      startedAt: new Date(),
      firstOutputAt: null,
      attempts: [],
    };
    const amounts = initialHold(
      routes[0],
      generation.heldPromptTokens,
      counts.expectedCompletionTokens(),
      clientMax,
      counts.leastCompletionTokens(),
    );
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

  private call(generation: ChatGeneration, route: ProviderRoute, signal: UpstreamAbort) {
    const maxTokens = completionCeiling(route, generation.clientMax);
    return {
      baseUrl: route.baseUrl,
      apiKey: route.apiKey,
      request: toUpstreamRequest(route, generation.body, generation.messages, maxTokens),
      signal,
    };
  }

  /**
   * The provider broke off after output: the answer failed. What a stream relayed reached the
   * client and is charged; a plain answer broken off reaches the client as an error only, so it
   * costs nothing (its usage is still recorded).
   */
  private async brokenOff(
    generation: ChatGeneration,
    route: ProviderRoute,
    failure: UpstreamFailure,
    usage: UpstreamUsage | null,
    promptTokens: number,
    text: string,
  ): Promise<{ error: DomainError; usage: UpstreamUsage; cost: Decimal }> {
    const error = upstreamDomainError(failure, true);
    const relayed = producedUsageAndCost(route, usage, promptTokens, text, generation.reserved);
    const produced =
      generation.responseMode === 'stream' ? relayed : { usage: relayed.usage, cost: new Decimal(0) };
    await this.finish(generation, {
      status: 'failed',
      provider: route.name,
      finishReason: null,
      usage: tokenUsage(produced.usage),
      cost: produced.cost,
      error: { code: error.code, message: error.message },
    });
    return { error, ...produced };
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
