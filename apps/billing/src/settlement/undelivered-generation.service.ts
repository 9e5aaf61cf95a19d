import { Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import {
  GENERATION_UNDELIVERED_ERROR_CODE,
  type GenerationError,
  type GenerationUndeliveredEvent,
} from '@gw/contracts';
import { type GenerationKey, keyOf, type LedgerTransaction } from '../ledger/ledger.repository';
import { spendingWindows } from '../limits/spending-windows';
import {
  type UndeliveredTransaction,
  UndeliveredGenerationRepository,
} from './undelivered-generation.repository';

/**
 * What became of an undelivered generation: `refunded` (its charge given back), `not-charged`
 * (recorded failed, nothing to give back), `awaiting-outcome` (not settled yet: it will be when its
 * outcome arrives), `unchanged` (done before, never reported, or already failed at no cost).
 */
export type UndeliveredOutcome = 'refunded' | 'not-charged' | 'awaiting-outcome' | 'unchanged';

const ZERO = new Decimal(0);

/** History's error entry for a generation the gateway could not deliver. */
export function undeliveredError(reason: string): GenerationError {
  return {
    code: GENERATION_UNDELIVERED_ERROR_CODE,
    message: `The gateway could not deliver the answer (${reason}); nothing is charged for it.`,
  };
}

/**
 * A generation whose answer the gateway could not deliver is not charged (decision 65). The
 * gateway's report and the generation's outcome may arrive in either order, and each may be
 * delivered again: whichever comes second finds the other under the account lock and records the
 * generation failed, giving back its charge with a `refund` entry, once.
 */
@Injectable()
export class UndeliveredGenerationService {
  constructor(private readonly repository: UndeliveredGenerationRepository) {}

  /** The gateway's report: kept for an outcome still to come, applied at once to one already settled. */
  report(event: GenerationUndeliveredEvent): Promise<UndeliveredOutcome> {
    const { organizationId, generationId } = event;
    return this.repository.transaction(async (ledger, undelivered) => {
      const balance = await ledger.lockAccount(organizationId);
      await undelivered.insertReport(organizationId, generationId, event.reason);
      // A second report of the same generation keeps the first one's reason.
      const reason = (await undelivered.findReport(organizationId, generationId)) ?? event.reason;
      return this.apply(ledger, undelivered, balance, { organizationId, generationId, reason });
    });
  }

  /**
   * Runs after every settlement batch, outside its transaction: a generation's report may have been
   * kept before it (or committed while it ran), and the charge is then given back.
   */
  async afterSettlements(settled: readonly GenerationKey[]): Promise<void> {
    for (const { organizationId, generationId } of await this.repository.reportedAmong(settled)) {
      await this.repository.transaction(async (ledger, undelivered) => {
        const balance = await ledger.lockAccount(organizationId);
        const reason = await undelivered.findReport(organizationId, generationId);
        if (reason === null) return;
        await this.apply(ledger, undelivered, balance, { organizationId, generationId, reason });
      });
    }
  }

  private async apply(
    ledger: LedgerTransaction,
    undelivered: UndeliveredTransaction,
    balance: Decimal,
    report: { organizationId: string; generationId: string; reason: string },
  ): Promise<UndeliveredOutcome> {
    const { organizationId, generationId } = report;
    const reservation = await ledger.findReservation(organizationId, generationId);
    const recorded = await undelivered.lockGeneration(organizationId, generationId);
    if (!recorded) return 'awaiting-outcome';
    if (recorded.errorCode === GENERATION_UNDELIVERED_ERROR_CODE) return 'unchanged';
    // A failed generation that cost nothing keeps its own, closer reason (its hold expired, the provider failed).
    const failedFree = recorded.listStatus === 'failed' && !recorded.clientCost.greaterThan(0);
    if (failedFree && recorded.errorCode !== null) return 'unchanged';
    const error = undeliveredError(report.reason);
    await undelivered.markUndelivered(organizationId, generationId, error);
    const refund = recorded.clientCost;
    if (!refund.greaterThan(0)) return 'not-charged';
    const balanceAfter = balance.plus(refund);
    await ledger.setBalance(organizationId, balanceAfter);
    await ledger.appendEntry({
      organizationId,
      kind: 'refund',
      amount: refund,
      balanceAfter,
      generationId,
      reason: error.message,
    });
    if (recorded.apiKeyId !== null && (await this.keyHasLimits(ledger, organizationId, recorded.apiKeyId))) {
      // Only keys with limits keep counters (decision 91). Out of the windows the charge was counted in: those of the reservation, as settlement counts.
      const madeAt = reservation?.createdAt ?? recorded.createdAt;
      await ledger.addToCounters(
        organizationId,
        recorded.apiKeyId,
        spendingWindows(madeAt),
        ZERO,
        refund.negated(),
      );
    }
    return 'refunded';
  }

  private async keyHasLimits(
    ledger: LedgerTransaction,
    organizationId: string,
    apiKeyId: string,
  ): Promise<boolean> {
    const limits = await ledger.limitsOfKeys([{ organizationId, apiKeyId }]);
    return (limits.get(keyOf(organizationId, apiKeyId))?.length ?? 0) > 0;
  }
}
