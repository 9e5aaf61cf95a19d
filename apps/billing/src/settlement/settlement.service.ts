import { Inject, Injectable, Logger } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import { GenerationFinishedEvent, RESERVATION_EXPIRED_ERROR_CODE } from '@gw/contracts';
import { type BatchOutcome } from '@gw/platform';
import { BILLING_CLOCK, Clock } from '../clock';
import { spendingWindows } from '../limits/spending-windows';
import {
  apiKeysBesides,
  distinctApiKeys,
  ExpiredReservation,
  type GenerationKey,
  GenerationRecorded,
  HeldReservation,
  LedgerRepository,
  NewGeneration,
  type NewLedgerEntry,
  type ReservationMark,
} from '../ledger/ledger.repository';
import { type BilledGeneration, BillingMetrics } from '../metrics/billing-metrics';
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
    private readonly metrics: BillingMetrics,
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
   * order; then the reservations and history rows of its events, in one statement each, in the
   * order reserve and expiry use too, all in one round trip (SettlementTransaction). Each event is
   * decided in memory as the events before it left the batch, and each kind of row is written with
   * one statement at the end, with the COMMIT. A generation recorded is a duplicate, whether by an
   * earlier transaction or by an earlier event of the batch. The one recorded row an event may
   * still overwrite is the failed entry its expired reservation left. An event whose cost cannot be
   * read fails alone; a batch that throws is undone whole (and retried by its caller one event at a
   * time).
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
    const settled = await this.ledger.settlementTransaction(async (tx): Promise<SettledBatch> => {
      const keys = events.map(({ organizationId, generationId }) => ({ organizationId, generationId }));
      const apiKeys = distinctApiKeys(events);
      const state = await tx.open({
        organizationIds: keys.map((key) => key.organizationId),
        generations: keys,
        keys: apiKeys,
      });
      const batch = new SettlementBatch(state.balances);
      const reservations = byGeneration(state.reservations);
      const recorded = new Map(state.recorded.map((found) => [generationKeyOf(found), found.code]));
      const writes = new SettlementWrites();
      const outcomes = events.map((event, index): BatchOutcome<SettlementOutcome> => {
        const cost = costs[index];
        if (!cost.ok) return cost;
        const key = generationKeyOf(event);
        const reservation = reservations.get(key) ?? null;
        return {
          ok: true,
          value: this.apply(batch, writes, state.held, event, cost.value, reservation, recorded.get(key)),
        };
      });
      // A hold made under another key than its event names counts against the hold's key.
      const unread = apiKeysBesides(batch.countedKeys(), apiKeys);
      const limits = new Map([...state.limits, ...(await tx.limitsOfKeys(unread))]);
      try {
        await tx.commit({
          generations: writes.generations,
          replacements: writes.replacements,
          entries: writes.entries,
          marks: writes.marks,
          balances: batch.changedBalances,
          counters: await batch.counterRows(tx, limits),
        });
      } catch (error) {
        if (!(error instanceof GenerationRecorded)) throw error;
        // Recorded by another transaction meanwhile: a batch of one answers what it would have alone, a larger one runs one event at a time.
        if (events.length === 1) return { outcomes: [{ ok: true, value: 'duplicate' }], billed: [] };
        throw new Error('A generation of the settlement batch was recorded meanwhile');
      }
      return { outcomes, billed: writes.billed };
    });
    this.metrics.billed(settled.billed);
    return settled.outcomes;
  }

  /**
   * Decides one event against the batch as the events before it left it, and collects its rows.
   * `recordedError` is the recorded generation's error code (null: none), undefined when not recorded.
   */
  private apply(
    batch: SettlementBatch,
    writes: SettlementWrites,
    held: Map<string, Decimal>,
    event: GenerationFinishedEvent,
    cost: Decimal,
    reservation: HeldReservation | null,
    recordedError: string | null | undefined,
  ): SettlementOutcome {
    const organizationId = event.organizationId;
    if (!writes.claim(event)) return 'duplicate';
    if (recordedError !== undefined && recordedError !== RESERVATION_EXPIRED_ERROR_CODE) return 'duplicate';
    const balance = batch.balance(organizationId);
    const active = reservation?.status === 'held';
    const available = active ? balance : balance.minus(held.get(organizationId) ?? ZERO);
    const charge = chargeFor(cost, reservation ? { amount: reservation.amount, active } : null, available);
    const row = toGenerationRow(event, cost, charge);
    if (recordedError === undefined) writes.generations.push(row);
    else writes.replacements.push(row);
    if (charge.greaterThan(0)) {
      const balanceAfter = balance.minus(charge);
      batch.setBalance(organizationId, balanceAfter);
      writes.entries.push({
        organizationId,
        kind: 'charge',
        amount: charge,
        balanceAfter,
        generationId: event.generationId,
      });
    }
    if (reservation && (active || charge.greaterThan(0))) {
      writes.marks.push({
        organizationId,
        generationId: event.generationId,
        status: charge.greaterThan(0) ? 'settled' : 'released',
      });
      const heldBefore = held.get(organizationId);
      if (active && heldBefore !== undefined) held.set(organizationId, heldBefore.minus(reservation.amount));
    }
    this.count(batch, event, reservation, active, charge);
    writes.billed.push({ model: event.model, usage: event.usage, charge });
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

/** What a committed settlement batch answers its events, and what it billed. */
interface SettledBatch {
  outcomes: BatchOutcome<SettlementOutcome>[];
  billed: BilledGeneration[];
}

/** The rows a settlement batch writes for its events, each kind in one statement at the end. */
class SettlementWrites {
  readonly generations: NewGeneration[] = [];
  readonly replacements: NewGeneration[] = [];
  readonly entries: NewLedgerEntry[] = [];
  readonly marks: ReservationMark[] = [];
  /** For the metrics, once the batch commits. */
  readonly billed: BilledGeneration[] = [];
  private readonly claimed = new Set<string>();

  /**
   * False for a generation id an earlier event of the batch took: a second delivery is a duplicate,
   * and so is another organization's event with the same id, as history's primary key would decide.
   */
  claim({ generationId }: GenerationKey): boolean {
    if (this.claimed.has(generationId)) return false;
    this.claimed.add(generationId);
    return true;
  }
}

const generationKeyOf = (key: GenerationKey): string => `${key.organizationId}/${key.generationId}`;

function byGeneration(reservations: HeldReservation[]): Map<string, HeldReservation> {
  return new Map(reservations.map((reservation) => [generationKeyOf(reservation), reservation]));
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
