import { DomainError, type GenerationFinalStatus, type TokenUsage } from '@gw/contracts';
import { roundCost } from '@gw/pricing';
import Decimal from 'decimal.js';
import type { NewAttempt } from './paid-generation-tables';
import type { ReservedGeneration } from './reserve-request';
import { upstreamDomainError, type UpstreamFailure } from './upstream-failure';

/** What a paid generation is, fixed from its start: who asked, for which model, through which API. */
export interface GenerationContext extends ReservedGeneration {
  modelDisplayName: string;
  startedAt: Date;
}

/** What a generation knows about itself when it is reported: the context and what happened while it ran. */
export interface BilledGeneration extends GenerationContext {
  /** When the first output arrived (ms since epoch), for `latencyMs`. */
  firstOutputAt: number | null;
  attempts: NewAttempt[];
}

export interface GenerationOutcome {
  status: GenerationFinalStatus;
  provider: string | null;
  /** The provider's, or null where it gave none: billing then records one from the status (a single rule for every producer). */
  finishReason: string | null;
  usage: TokenUsage | null;
  cost: Decimal;
  error: { code: string; message: string } | null;
}

/** What a hold asks of billing once it is open: growing it, and reporting how the generation ended. */
export interface HoldLedger {
  /** Asks billing to grow the hold by `amount`; answers the hold as it now is, `held` when billing cannot be asked. */
  extend(context: GenerationContext, held: Decimal, amount: Decimal): Promise<Decimal>;
  /** Records the outcome durably (it settles the hold) and stops renewing the hold's lease. */
  record(generation: BilledGeneration, outcome: GenerationOutcome): Promise<void>;
}

/** A generation that produced nothing: it costs nothing, so its hold is released whole. */
function failedOutcome(provider: string | null, error: DomainError): GenerationOutcome {
  return {
    status: 'failed',
    provider,
    finishReason: null,
    usage: null,
    cost: new Decimal(0),
    error: { code: error.code, message: error.message },
  };
}

/**
 * One paid generation's money, from its reservation to its outcome: what billing holds for it (it
 * grows as the answer does), the provider attempts and when the first output came. The money rules
 * live here once: a charge never exceeds the hold, and the outcome is reported exactly once (a second
 * finish or fail, even a concurrent one, does nothing). Opened by GenerationBilling.open or resume.
 */
export class GenerationHold {
  /** Appended to by the provider loop (tryProvidersInOrder) and by whoever closes an attempt it left open. */
  readonly attempts: NewAttempt[] = [];
  private held: Decimal;
  private firstOutputAt: number | null = null;
  private ending: Promise<void> | null = null;
  /** Extensions run one at a time, so two callers growing together never ask for the same difference twice. */
  private growing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly context: GenerationContext,
    reserved: Decimal,
    private readonly ledger: HoldLedger,
  ) {
    this.held = reserved;
  }

  get generationId(): string {
    return this.context.generationId;
  }

  /** What billing holds for this generation now. */
  get reserved(): Decimal {
    return this.held;
  }

  /** Whether the outcome has been reported (finish or fail was called). */
  get ended(): boolean {
    return this.ending !== null;
  }

  /** The first call counts: that is when the client started to get an answer. */
  markFirstOutput(): void {
    this.firstOutputAt ??= Date.now();
  }

  /**
   * Asks billing to grow the hold to `target`; answers the hold as it now is. Billing may grant less
   * or nothing (the balance or a limit is exhausted), and when it cannot be asked nothing is granted:
   * the generation then stops at what it holds, which is always safe. Never throws.
   */
  growTo(target: Decimal): Promise<Decimal> {
    const grown = this.growing.then(async () => {
      if (this.ended || target.lessThanOrEqualTo(this.held)) return this.held;
      const amount = target.minus(this.held).toDecimalPlaces(8, Decimal.ROUND_UP);
      this.held = await this.ledger.extend(this.context, this.held, amount).catch(() => this.held);
      return this.held;
    });
    this.growing = grown;
    return grown;
  }

  /** What `cost` may be charged: never more than is held. */
  capped(cost: Decimal): Decimal {
    return roundCost(Decimal.min(cost, this.held));
  }

  /** Reports how the generation ended, charging at most what is held; once only, a later call does nothing. */
  finish(outcome: GenerationOutcome): Promise<void> {
    if (this.ending) return this.ending;
    // The hold's size is read now: an extension answered after the outcome changes nothing.
    const charged = { ...outcome, cost: this.capped(outcome.cost) };
    this.ending = this.ledger.record(this.billed(), charged);
    return this.ending;
  }

  /**
   * The generation failed without an answer: recorded failed at zero cost, which releases the hold,
   * against the last provider tried. Answers the error the client is told (an UpstreamFailure in the
   * gateway's words, a DomainError as it is). Once only, like finish.
   */
  async fail(failure: UpstreamFailure | DomainError | null): Promise<DomainError> {
    const provider = this.attempts.at(-1)?.provider ?? null;
    const error = failure instanceof DomainError ? failure : upstreamDomainError(failure, false, provider);
    await this.finish(failedOutcome(provider, error));
    return error;
  }

  private billed(): BilledGeneration {
    return { ...this.context, firstOutputAt: this.firstOutputAt, attempts: this.attempts };
  }
}
