import Decimal from 'decimal.js';
import type { DomainError } from '@gw/contracts';
import { affordableCompletionTokens, generationCost } from '@gw/pricing';
import type { ProviderRoute } from '@gw/catalogue';
import {
  type GenerationOutcome,
  recordAttempt,
  toUpstreamFailure,
  upstreamDomainError,
  type UpstreamFailure,
  type ModelCallTrace,
} from '@gw/paid-generation';
import type { UpstreamAbort } from '../providers/upstream-abort';
import type { UpstreamStreamEvent, UpstreamUsage } from '../providers/upstream-chat';
import {
  BLOCKED_ERROR,
  type ChatGeneration,
  completionCost,
  isBlockedWithoutOutput,
  producedUsageAndCost,
  tokenUsage,
  usageOrEstimate,
} from './chat-generation';
import { completionCeiling } from './chat-plan';
import type { FirstOutput } from './first-output';
import type { LearnedCounts } from './hold-estimates';
import { holdNeeds } from './hold-sizing';
import { TokenTally } from './token-estimate';

/** A provider's answer, opened: its events so far up to the first output, the rest to read, and how to stop it. */
export interface OpenedAnswer {
  iterator: AsyncIterator<UpstreamStreamEvent[]>;
  head: FirstOutput;
  /** Aborts the upstream call, when the hold cannot pay for more. */
  stop: () => void;
  /** The call's span, ended with the answer. */
  trace: ModelCallTrace;
}

/** How reading an answer ended: finished (still to be reported), or cancelled or broken off (already reported). */
export type AnswerEnd =
  | {
      kind: 'finished';
      finishReason: string;
      usage: UpstreamUsage;
      cost: Decimal;
      outcome: GenerationOutcome;
    }
  | { kind: 'cancelled' }
  | { kind: 'broken'; error: DomainError; usage: UpstreamUsage; cost: Decimal };

/** Receives each piece of the answer once it is paid for, with the prompt's tokens as known then. */
export type AnswerOutput = (event: UpstreamStreamEvent, promptTokens: number) => void;

/**
 * The client went away: what the provider produced so far is charged, as it was paid for. The
 * provider's finish reason is kept where it gave one before the end; billing records `cancelled` otherwise.
 */
export function reportCancelled(
  generation: ChatGeneration,
  route: ProviderRoute,
  usage: UpstreamUsage | null,
  promptTokens: number,
  text: string,
  providerFinishReason: string | null,
): Promise<void> {
  const produced = producedUsageAndCost(route, usage, promptTokens, text, generation.hold);
  return generation.hold.finish({
    status: 'cancelled',
    provider: route.name,
    finishReason: providerFinishReason,
    usage: tokenUsage(produced.usage),
    cost: produced.cost,
    error: null,
  });
}

/**
 * One provider's answer read against the generation's hold, from its first output to its end; from
 * here on a failure cannot fall back. Each piece of output is passed on only once the hold pays for
 * it: when it does not, the hold is grown (the one pause), and where the balance or a limit has
 * nothing left the upstream call is stopped and the answer ends as `length`, charged for what was
 * passed on. A cancelled or broken answer is reported here; a finished one is left to the caller,
 * who reports it once the client has its last part.
 */
export class PaidAnswer {
  private readonly produced = new TokenTally();
  private readonly ceilingTokens: number;
  private text = '';
  private finishReason: string | null = null;
  private usage: UpstreamUsage | null = null;
  /** The provider's count of the prompt once it tells one, the realistic estimate until then. */
  private promptTokens: number;
  /** The prompt as the hold counts it (see LearnedCounts.promptTokens), the provider's count once told. */
  private heldPrompt: number;
  private outOfFunds = false;
  /** The answer's length the hold is known to pay for: pieces within it skip pricing. */
  private paidTokens = -1;

  constructor(
    private readonly generation: ChatGeneration,
    private readonly route: ProviderRoute,
    /** What this process learned of the provider's counts for this model and script. */
    private readonly counts: LearnedCounts,
  ) {
    this.ceilingTokens = completionCeiling(route, generation.clientMax);
    this.promptTokens = generation.promptEstimate;
    this.heldPrompt = generation.heldPromptTokens;
  }

  /** Reads `answer`, whose attempt began at `started` and is closed here. */
  async read(
    answer: OpenedAnswer,
    started: number,
    signal: UpstreamAbort,
    output: AnswerOutput,
  ): Promise<AnswerEnd> {
    const { hold } = this.generation;
    hold.markFirstOutput();
    try {
      await this.take(answer.head.events, output);
      if (!answer.head.done) {
        while (!this.outOfFunds) {
          const next = await answer.iterator.next();
          if (next.done) break;
          await this.take(next.value, output);
        }
      }
    } catch (err) {
      const failure = toUpstreamFailure(err);
      recordAttempt(hold.attempts, this.route, started, failure, signal.aborted);
      if (signal.aborted) {
        const { route, usage, promptTokens, text, finishReason } = this;
        await reportCancelled(this.generation, route, usage, promptTokens, text, finishReason);
        return { kind: 'cancelled' };
      }
      return { kind: 'broken', ...(await this.brokenOff(failure)) };
    }
    if (this.outOfFunds) {
      answer.stop();
      this.usage = null;
    }
    recordAttempt(hold.attempts, this.route, started, null);
    return this.finished();
  }

  /** Takes a batch of events in order, stopping where the hold cannot pay for more: it waits only to grow the hold. */
  private async take(events: readonly UpstreamStreamEvent[], output: AnswerOutput): Promise<void> {
    for (const event of events) {
      const piece = this.note(event);
      if (piece === null) continue;
      this.produced.add(piece);
      // The provider's count of the answer so far, as learned from its earlier answers: what the hold must pay for.
      const producedTokens = this.counts.completionTokens(this.produced.tokens);
      if (producedTokens > this.paidTokens) {
        if (!(await this.holdPays(producedTokens))) {
          this.outOfFunds = true;
          return;
        }
        const { hold } = this.generation;
        this.paidTokens = affordableCompletionTokens(this.route.pricing, this.heldPrompt, hold.reserved);
      }
      this.text += piece;
      output(event, this.promptTokens);
    }
  }

  /** Keeps what an event tells of the answer; answers its output as text, null when it carries none. */
  private note(event: UpstreamStreamEvent): string | null {
    if (event.promptTokens !== undefined) {
      this.promptTokens = this.heldPrompt = event.promptTokens;
      this.paidTokens = -1;
    }
    if (event.finishReason) this.finishReason = event.finishReason;
    if (event.usage) this.usage = event.usage;
    if (!event.content && !event.toolCalls && !event.reasoning && !event.reasoningDetails) return null;
    // Reasoning is output the provider bills: its text counts with the answer's (a signature or encrypted data does not).
    return (
      (event.reasoning ?? '') +
      (event.content ?? '') +
      (event.toolCalls ?? []).map((call) => call.function?.arguments ?? '').join('')
    );
  }

  /**
   * Whether the hold pays for the answer so far (the prompt and `producedTokens`); when it does not,
   * it is grown, with room for the answer to double so that a long one asks rarely.
   */
  private async holdPays(producedTokens: number): Promise<boolean> {
    const { hold } = this.generation;
    const { needed, target } = holdNeeds(this.route, this.heldPrompt, producedTokens, this.ceilingTokens);
    if (needed.lessThanOrEqualTo(hold.reserved)) return true;
    return needed.lessThanOrEqualTo(await hold.growTo(target));
  }

  private async finished(): Promise<AnswerEnd> {
    const { generation, route, usage, text, outOfFunds } = this;
    const final = usageOrEstimate(usage, this.promptTokens, text);
    const reason: string = outOfFunds ? 'length' : (this.finishReason ?? 'stop');
    const blocked = isBlockedWithoutOutput(reason, text);
    if (!blocked && !outOfFunds) {
      // The provider's usage may cost more than the estimates the hold grew by (its tokenizer counts
      // differently): the hold is grown to the cost where the balance allows, since the charge is capped by it.
      await generation.hold.growTo(generationCost(route.pricing, final));
      this.counts.record({
        promptEstimate: generation.promptEstimate,
        messages: generation.messages.length,
        answerTally: this.produced.tokens,
        provider:
          usage === null
            ? null
            : { promptTokens: final.prompt_tokens, completionTokens: final.completion_tokens },
      });
    }
    const cost = blocked ? new Decimal(0) : completionCost(route, final, generation.hold);
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
   * The provider broke off after output: the answer failed. What a stream relayed reached the
   * client and is charged; a plain answer broken off reaches the client as an error only, so it
   * costs nothing (its usage is still recorded).
   */
  private async brokenOff(
    failure: UpstreamFailure,
  ): Promise<{ error: DomainError; usage: UpstreamUsage; cost: Decimal }> {
    const { generation, route } = this;
    const error = upstreamDomainError(failure, true);
    const relayed = producedUsageAndCost(route, this.usage, this.promptTokens, this.text, generation.hold);
    const produced =
      generation.responseMode === 'stream' ? relayed : { usage: relayed.usage, cost: new Decimal(0) };
    await generation.hold.finish({
      status: 'failed',
      provider: route.name,
      finishReason: null,
      usage: tokenUsage(produced.usage),
      cost: produced.cost,
      error: { code: error.code, message: error.message },
    });
    return { error, ...produced };
  }
}
