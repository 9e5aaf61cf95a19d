import { Inject, Injectable, Logger } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import { GenerationFinishedEvent, RESERVATION_EXPIRED_ERROR_CODE } from '@gw/contracts';
import { type BatchOutcome } from '@gw/platform';
import { BILLING_CLOCK, Clock } from '../clock';
import { spendingWindows } from '../limits/spending-windows';
import {
  ExpiredReservation,
  HeldReservation,
  LedgerRepository,
  LedgerTransaction,
  NewGeneration,
} from '../ledger/ledger.repository';
import { parseMoney } from '../money/money';
import { SettlementBatch } from './settlement-batch';
import { chargeFor, listStatusOf, recordedFinishReason } from './settlement-rules';

export type SettlementOutcome = 'settled' | 'duplicate';

const ZERO = new Decimal(0);

@Injectable()
export class SettlementService {
  private readonly logger = new Logger('Settlement');

  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  /** One event in a batch of its own; a refusal is thrown. */
  async settle(event: GenerationFinishedEvent): Promise<SettlementOutcome> {
    const [outcome] = await this.settleBatch([event]);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /**
   * Records each generation and charges for it, once, in one transaction for the whole batch (a
   * group commit), in the events' order. The accounts of the batch are locked first, once, in id
   * order; then each event locks its reservation and history row, in the order reserve and expiry
   * use too. The history row's primary key is what makes a second delivery a no-op, even when both
   * deliveries run at the same time. The one recorded row an event may still overwrite is the
   * failed entry its expired reservation left. An event whose cost cannot be read fails alone; a
   * batch that throws is undone whole (and retried by its caller one event at a time).
   */
  async settleBatch(events: GenerationFinishedEvent[]): Promise<BatchOutcome<SettlementOutcome>[]> {
    const costs = events.map((event): BatchOutcome<Decimal> => {
      try {
        return { ok: true, value: parseMoney(event.cost, 'cost') };
      } catch (error) {
        return { ok: false, error };
      }
    });
    for (const event of events) {
      await this.ledger.saveModelName(event.model, event.modelDisplayName || event.model);
    }
    return this.ledger.transaction(async (tx) => {
      const batch = new SettlementBatch(await tx.lockAccounts(events.map((event) => event.organizationId)));
      const outcomes: BatchOutcome<SettlementOutcome>[] = [];
      for (const [index, event] of events.entries()) {
        const cost = costs[index];
        outcomes.push(cost.ok ? { ok: true, value: await this.apply(tx, batch, event, cost.value) } : cost);
      }
      await batch.write(tx);
      return outcomes;
    });
  }

  private async apply(
    tx: LedgerTransaction,
    batch: SettlementBatch,
    event: GenerationFinishedEvent,
    cost: Decimal,
  ): Promise<SettlementOutcome> {
    const organizationId = event.organizationId;
    const balance = batch.balance(organizationId);
    const reservation = await tx.findReservation(organizationId, event.generationId);
    const recordedError = await tx.recordedErrorCode(organizationId, event.generationId);
    if (recordedError !== undefined && recordedError !== RESERVATION_EXPIRED_ERROR_CODE) return 'duplicate';
    const active = reservation?.status === 'held';
    const available = active ? balance : balance.minus(await tx.heldTotal(organizationId));
    const charge = chargeFor(cost, reservation ? { amount: reservation.amount, active } : null, available);
    const row = toGenerationRow(event, cost, charge);
    if (recordedError === undefined) {
      if (!(await tx.recordGeneration(organizationId, row))) return 'duplicate';
    } else {
      await tx.replaceGeneration(organizationId, row);
    }
    if (charge.greaterThan(0)) {
      const balanceAfter = balance.minus(charge);
      batch.setBalance(organizationId, balanceAfter);
      await tx.appendEntry({
        organizationId,
        kind: 'charge',
        amount: charge,
        balanceAfter,
        generationId: event.generationId,
      });
    }
    if (reservation && (active || charge.greaterThan(0))) {
      await tx.markReservation(
        organizationId,
        event.generationId,
        charge.greaterThan(0) ? 'settled' : 'released',
      );
    }
    this.count(batch, event, reservation, active, charge);
    return 'settled';
  }

  /**
   * Releases one hold whose generation never reported back and records the generation as failed
   * (unless something recorded it meanwhile). Answers false when the hold is no longer expired-and-held.
   */
  async expire({ organizationId, generationId }: ExpiredReservation): Promise<boolean> {
    const now = this.clock.now();
    return this.ledger.transaction(async (tx) => {
      await tx.lockAccount(organizationId);
      const reservation = await tx.findReservation(organizationId, generationId);
      if (!reservation || reservation.status !== 'held' || reservation.expiresAt.getTime() >= now.getTime()) {
        return false;
      }
      await tx.markReservation(organizationId, generationId, 'released');
      const apiKeyId = reservation.apiKeyId;
      if (apiKeyId !== null && (await tx.limitsOfKeys([{ organizationId, apiKeyId }])).size > 0) {
        await tx.addToCounters(
          organizationId,
          apiKeyId,
          spendingWindows(reservation.createdAt),
          reservation.amount.negated(),
          ZERO,
        );
      }
      await tx.recordGeneration(organizationId, expiredGenerationRow(reservation, now));
      return true;
    });
  }

  /** The charge lands in the windows the reservation was made in, so a settlement after midnight counts for the day it started. */
  private count(
    batch: SettlementBatch,
    event: GenerationFinishedEvent,
    reservation: HeldReservation | null,
    active: boolean,
    charge: Decimal,
  ): void {
    const apiKeyId = reservation ? reservation.apiKeyId : (event.apiKeyId ?? null);
    if (apiKeyId === null) return;
    const freed = active && reservation ? reservation.amount.negated() : ZERO;
    if (freed.isZero() && charge.isZero()) return;
    const madeAt = reservation ? reservation.createdAt : new Date(event.createdAt);
    batch.addToCounters(event.organizationId, apiKeyId, spendingWindows(madeAt), freed, charge);
  }
}

function toGenerationRow(event: GenerationFinishedEvent, cost: Decimal, charge: Decimal): NewGeneration {
  return {
    id: event.generationId,
    organizationId: event.organizationId,
    apiKeyId: event.apiKeyId ?? null,
    apiKeyName: event.apiKeyName ?? null,
    apiKeyShort: event.apiKeyShort ?? null,
    userId: event.userId ?? null,
    model: event.model,
    requestType: event.requestType,
    apiType: event.apiType,
    responseMode: event.responseMode,
    status: event.status,
    listStatus: listStatusOf(event.status),
    finishReason: recordedFinishReason(event.status, event.finishReason),
    provider: event.provider ?? null,
    usage: event.usage ?? null,
    cost: cost.toFixed(),
    clientCost: charge.toFixed(),
    generationTimeMs: event.generationTimeMs ?? null,
    latencyMs: event.latencyMs ?? null,
    queueTimeMs: event.queueTimeMs ?? null,
    attemptsCount: event.attemptsCount,
    isCancelled: event.isCancelled || event.status === 'cancelled',
    error: event.error ?? null,
    createdAt: new Date(event.createdAt),
    completedAt: event.completedAt ? new Date(event.completedAt) : null,
  };
}

/** What history shows for a generation that never reported back: failed, free, labelled from the reserve request. */
function expiredGenerationRow(reservation: HeldReservation, now: Date): NewGeneration {
  const context = reservation.context ?? {};
  return {
    id: reservation.generationId,
    organizationId: reservation.organizationId,
    apiKeyId: reservation.apiKeyId,
    apiKeyName: context.apiKeyName ?? null,
    apiKeyShort: context.apiKeyShort ?? null,
    userId: context.userId ?? null,
    model: context.model ?? 'unknown',
    requestType: context.requestType ?? 'chat',
    apiType: context.apiType ?? 'unknown',
    responseMode: context.responseMode ?? 'sync',
    status: 'failed',
    listStatus: 'failed',
    finishReason: recordedFinishReason('failed', null),
    provider: null,
    usage: null,
    cost: '0',
    clientCost: '0',
    generationTimeMs: null,
    latencyMs: null,
    queueTimeMs: null,
    attemptsCount: 0,
    isCancelled: false,
    error: {
      code: RESERVATION_EXPIRED_ERROR_CODE,
      message:
        'The generation did not report its outcome before its reservation expired; nothing was charged.',
    },
    createdAt: reservation.createdAt,
    completedAt: now,
  };
}
