import { Injectable, Logger } from '@nestjs/common';
import { BillingContracts, DomainError, GenerationFinishedEvent, reserveAmountsHold } from '@gw/contracts';
import { RpcClient } from '@gw/platform';
import { costString } from '@gw/pricing';
import Decimal from 'decimal.js';
import {
  type BilledGeneration,
  type GenerationContext,
  GenerationHold,
  type GenerationOutcome,
  type HoldLedger,
} from './generation-hold';
import { GenerationRecorder } from './generation-recorder.service';
import { ReservationLeases } from './reservation-leases.service';
import { reserveRequest } from './reserve-request';

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

/** The least and the most a generation's first hold may be; billing grants what the balance allows between them. */
export interface HoldAmounts {
  maxAmount: Decimal;
  minAmount: Decimal;
}

/**
 * Opens the hold of every paid generation: its maximum cost is reserved before the upstream call,
 * and the hold (GenerationHold) then grows, charges and reports how the generation ended (a durable
 * event that billing settles) whatever the outcome.
 */
@Injectable()
export class GenerationBilling {
  private readonly logger = new Logger('GenerationBilling');

  constructor(
    private readonly rpc: RpcClient,
    private readonly recorder: GenerationRecorder,
    private readonly leases: ReservationLeases,
  ) {}

  private readonly ledger: HoldLedger = {
    extend: (context, held, amount) => this.extend(context, held, amount),
    record: (generation, outcome) => this.record(generation, outcome),
  };

  /**
   * Reserves the generation's first hold and answers it open. A refusal (402 and the like) passes
   * through with nothing to settle; billing unreachable is a 503 whose possible reservation the
   * failed event releases.
   */
  async open(context: GenerationContext, amounts: HoldAmounts): Promise<GenerationHold> {
    let reserved: Decimal;
    try {
      const request = reserveRequest(context, amounts.maxAmount, amounts.minAmount);
      const reservation = await this.rpc.request(BillingContracts.reserve, request, {
        builtByCaller: reserveAmountsHold(request),
      });
      reserved = new Decimal(reservation.reservedAmount);
    } catch (err) {
      const error =
        err instanceof DomainError ? err : new DomainError('service_unavailable', 'Billing is not available');
      // A reservation that timed out may still exist; the failed event releases it.
      if (!REFUSALS.has(error.code))
        await new GenerationHold(context, new Decimal(0), this.ledger).fail(error);
      throw error;
    }
    this.leases.hold({
      generationId: context.generationId,
      organizationId: context.principal.organizationId,
    });
    return new GenerationHold(context, reserved, this.ledger);
  }

  /**
   * The hold of a generation reserved earlier (a durable job picked up again after a restart): its
   * lease is renewed from now on, nothing is reserved again.
   */
  resume(context: GenerationContext, reserved: Decimal): GenerationHold {
    this.leases.hold({
      generationId: context.generationId,
      organizationId: context.principal.organizationId,
    });
    return new GenerationHold(context, reserved, this.ledger);
  }

  /**
   * Asks billing to grow the hold by `amount`; answers the hold as it now is. Billing may grant
   * less or nothing (the balance or a limit is exhausted). When billing cannot be asked, nothing is
   * granted: the generation then stops at what it holds, which is always safe.
   */
  private async extend(generation: GenerationContext, held: Decimal, amount: Decimal): Promise<Decimal> {
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

  /** Records the outcome durably (it settles the hold from here on, through the outbox if billing is away). */
  private async record(generation: BilledGeneration, outcome: GenerationOutcome): Promise<void> {
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
