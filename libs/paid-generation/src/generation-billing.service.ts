import { Injectable, Logger } from '@nestjs/common';
import {
  BillingContracts,
  DomainError,
  GenerationFinalStatus,
  GenerationFinishedEvent,
  TokenUsage,
} from '@gw/contracts';
import { RpcClient } from '@gw/platform';
import { costString } from '@gw/pricing';
import Decimal from 'decimal.js';
import type { NewAttempt } from './paid-generation-tables';
import { GenerationRecorder } from './generation-recorder.service';
import { ReservationLeases } from './reservation-leases.service';
import { ReservedGeneration, reserveRequest } from './reserve-request';
import type { UpstreamFailure } from './upstream-failure';
import { upstreamDomainError } from './upstream-failure';

/** What every paid generation (chat, embedding, transcription, media) knows about itself while it runs. */
export interface BilledGeneration extends ReservedGeneration {
  modelDisplayName: string;
  startedAt: Date;
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

/** Billing refused the request itself: nothing was reserved, so there is nothing to settle. */
const REFUSALS = new Set([
  'insufficient_balance',
  'spending_limit_exceeded',
  'invalid_request',
  'forbidden',
  'not_found',
]);

export function generationFinishedEvent(
  generation: BilledGeneration,
  outcome: GenerationOutcome,
): GenerationFinishedEvent {
  const { principal } = generation;
  const apiKey = principal.kind === 'api_key' ? principal : null;
  const now = Date.now();
  const started = generation.startedAt.getTime();
  return {
    generationId: generation.generationId,
    organizationId: principal.organizationId,
    apiKeyId: apiKey?.apiKeyId ?? null,
    apiKeyName: apiKey?.apiKeyName ?? null,
    apiKeyShort: apiKey?.apiKeyShort ?? null,
    userId: principal.userId ?? null,
    model: generation.model,
    modelDisplayName: generation.modelDisplayName,
    requestType: generation.requestType,
    apiType: generation.apiType,
    responseMode: generation.responseMode,
    status: outcome.status,
    finishReason: outcome.finishReason,
    provider: outcome.provider,
    usage: outcome.usage,
    cost: costString(outcome.cost),
    generationTimeMs: now - started,
    latencyMs: generation.firstOutputAt === null ? null : generation.firstOutputAt - started,
    queueTimeMs: 0,
    attemptsCount: generation.attempts.length,
    isCancelled: outcome.status === 'cancelled',
    error: outcome.error,
    createdAt: generation.startedAt.toISOString(),
    completedAt: new Date(now).toISOString(),
  };
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
 * The two money steps every paid generation shares: hold its maximum cost before the upstream
 * call, and report how it ended (a durable event that billing settles) whatever the outcome.
 */
@Injectable()
export class GenerationBilling {
  private readonly logger = new Logger('GenerationBilling');

  constructor(
    private readonly rpc: RpcClient,
    private readonly recorder: GenerationRecorder,
    private readonly leases: ReservationLeases,
  ) {}

  /** Answers the amount held; a refusal (402 and the like) passes through with nothing to settle. */
  async reserve(generation: BilledGeneration, maxAmount: Decimal, minAmount: Decimal): Promise<Decimal> {
    try {
      const reservation = await this.rpc.request(
        BillingContracts.reserve,
        reserveRequest(generation, maxAmount, minAmount),
      );
      this.leases.hold({
        generationId: generation.generationId,
        organizationId: generation.principal.organizationId,
      });
      return new Decimal(reservation.reservedAmount);
    } catch (err) {
      const error =
        err instanceof DomainError ? err : new DomainError('service_unavailable', 'Billing is not available');
      // A reservation that timed out may still exist; the failed event releases it.
      if (!REFUSALS.has(error.code)) await this.finish(generation, failedOutcome(null, error));
      throw error;
    }
  }

  /**
   * Asks billing to grow the hold by `amount`; answers the hold as it now is. Billing may grant
   * less or nothing (the balance or a limit is exhausted). When billing cannot be asked, nothing is
   * granted: the generation then stops at what it holds, which is always safe.
   */
  async extend(generation: BilledGeneration, held: Decimal, amount: Decimal): Promise<Decimal> {
    try {
      const answer = await this.rpc.request(BillingContracts.extendReservation, {
        generationId: generation.generationId,
        organizationId: generation.principal.organizationId,
        amount: costString(amount),
      });
      return new Decimal(answer.reservedAmount);
    } catch (err) {
      this.logger.warn(
        `The hold of generation ${generation.generationId} could not be extended: ${(err as Error).message}`,
      );
      return held;
    }
  }

  /**
   * No provider produced an answer: recorded failed at zero cost, which releases the hold, against
   * the last provider tried. Answers the error the client is told.
   */
  async failed(generation: BilledGeneration, failure: UpstreamFailure | null): Promise<DomainError> {
    const error = upstreamDomainError(failure, false, generation.attempts.at(-1)?.provider ?? null);
    await this.finish(generation, failedOutcome(generation.attempts.at(-1)?.provider ?? null, error));
    return error;
  }

  async finish(generation: BilledGeneration, outcome: GenerationOutcome): Promise<void> {
    // The outcome settles the hold from here on (through the outbox if billing is away).
    this.leases.drop(generation.generationId);
    try {
      await this.recorder.finished(generationFinishedEvent(generation, outcome), generation.attempts);
    } catch (err) {
      this.logger.error(
        `Generation ${generation.generationId} could not be recorded: ${(err as Error).message}`,
      );
    }
  }
}
