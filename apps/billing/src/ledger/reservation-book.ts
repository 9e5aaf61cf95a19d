import { Decimal } from 'decimal.js';
import { DomainError, type ExtendReservationResponse, type ReserveCreditResponse } from '@gw/contracts';
import { limitExceededMessage, tightestLimit } from '../limits/limit-rules';
import { type SpendingWindow, spendingWindows } from '../limits/spending-windows';
import { formatMoney, minMoney } from '../money/money';
import { insufficientBalanceMessage, noBalanceAvailableMessage } from './balance-refusal';
import {
  type CounterKey,
  counterIdOf,
  type CounterValue,
  type HeldReservation,
  type KeyLimit,
  keyOf,
  type NewReservation,
  type ReservationGrowth,
} from './ledger.repository';
import { type ReservationContext } from './reservation.entity';

/** A reserve request as the batch applies it: checked, parsed, and stamped with the time it arrived. */
export interface ReserveOperation {
  kind: 'reserve';
  generationId: string;
  organizationId: string;
  apiKeyId: string | null;
  maxAmount: Decimal;
  minAmount: Decimal;
  context: ReservationContext | null;
  createdAt: Date;
  expiresAt: Date;
  /** The spending windows of `createdAt`. */
  windows: SpendingWindow[];
}

/** A request to grow a running hold, as the batch applies it. */
export interface ExtendOperation {
  kind: 'extend';
  generationId: string;
  organizationId: string;
  amount: Decimal;
  /** When it arrived: a hold past its expiry then is not running. */
  now: Date;
  /** A hold that grows lives one lease from `now`, never past its TTL counted from when it was made. */
  leaseMs: number;
  ttlMs: number;
}

/** What the batch read under the account locks, before applying any request. */
export interface ReservationBookState {
  balances: Map<string, Decimal>;
  held: Map<string, Decimal>;
  /** Reservations the requested generations already have in the requesting organizations. */
  existing: Map<string, { organizationId: string; amount: Decimal }>;
  /** The limits of the keys that have any, by `keyOf`. */
  limits: Map<string, KeyLimit[]>;
  /** The counters of the keys with limits, in the windows the requests need. */
  counters: CounterValue[];
  /** The holds the extend requests name, by generation id, as read (locked) before the batch. */
  running: Map<string, HeldReservation>;
}

const ZERO = new Decimal(0);

const atLeastZero = (amount: Decimal): Decimal => (amount.greaterThan(0) ? amount : ZERO);

/**
 * The ledger of one batch in memory: each reserve is decided against the balance, the holds and
 * the counters as the requests before it in the batch left them, with the same rules and messages
 * a reserve alone follows, and the holds it makes are collected for one multi-row write.
 */
export class ReservationBook {
  private readonly counters = new Map<string, CounterValue>();
  private readonly added = new Map<string, CounterValue>();
  private readonly made = new Map<string, { organizationId: string; amount: Decimal }>();
  private readonly grown = new Map<string, ReservationGrowth>();
  readonly reservations: NewReservation[] = [];

  constructor(private readonly state: ReservationBookState) {
    for (const counter of state.counters) this.counters.set(counterIdOf(counter), counter);
  }

  /**
   * Holds min(maxAmount, available, room under every limit of the key); a generation that already
   * has a hold in the organization answers it. Throws the DomainError a reserve alone would throw.
   */
  reserve(op: ReserveOperation): ReserveCreditResponse {
    const { generationId, organizationId } = op;
    const earlier = this.made.get(generationId) ?? this.state.existing.get(generationId);
    if (earlier && earlier.organizationId === organizationId) {
      return { generationId, reservedAmount: formatMoney(earlier.amount) };
    }
    const balance = this.state.balances.get(organizationId) ?? ZERO;
    const held = this.state.held.get(organizationId) ?? ZERO;
    const available = balance.minus(held);
    let reserved = minMoney(op.maxAmount, available);
    if (available.lessThanOrEqualTo(0)) {
      throw new DomainError('insufficient_balance', noBalanceAvailableMessage(balance, held));
    }
    if (reserved.lessThan(op.minAmount)) {
      throw new DomainError(
        'insufficient_balance',
        insufficientBalanceMessage(available, op.minAmount, op.context?.apiType),
      );
    }
    if (op.apiKeyId !== null) reserved = this.capByLimits(op, op.apiKeyId, reserved);
    if (earlier) {
      throw new DomainError(
        'conflict',
        `Generation ${generationId} already has a reservation`,
        'generationId',
      );
    }
    this.made.set(generationId, { organizationId, amount: reserved });
    this.state.held.set(organizationId, held.plus(reserved));
    this.reservations.push({
      generationId,
      organizationId,
      apiKeyId: op.apiKeyId,
      amount: reserved,
      createdAt: op.createdAt,
      expiresAt: op.expiresAt,
      context: op.context,
    });
    // A key without limits keeps no counters: setting its first limits rebuilds them (SpendingLimitRepository).
    if (op.apiKeyId !== null && this.state.limits.has(keyOf(organizationId, op.apiKeyId))) {
      this.count(organizationId, op.apiKeyId, op.windows, reserved);
    }
    return { generationId, reservedAmount: formatMoney(reserved) };
  }

  /**
   * Adds min(amount, balance − every hold, room under the key's tightest limit) to a running hold.
   * The limit room is counted in the windows the reservation was made in, where its settlement will
   * free and charge it. Granting nothing is an answer, not an error: the producer then stops the
   * generation. A hold that is settled, released or past its expiry is not found.
   */
  extend(op: ExtendOperation): ExtendReservationResponse {
    const { generationId, organizationId } = op;
    const reservation = this.state.running.get(generationId);
    if (
      !reservation ||
      reservation.organizationId !== organizationId ||
      reservation.status !== 'held' ||
      reservation.expiresAt.getTime() < op.now.getTime()
    ) {
      throw new DomainError(
        'not_found',
        `Generation ${generationId} has no running reservation to extend`,
        'generationId',
      );
    }
    const held = this.state.held.get(organizationId) ?? ZERO;
    const balance = this.state.balances.get(organizationId) ?? ZERO;
    let granted = minMoney(op.amount, atLeastZero(balance.minus(held)));
    const { apiKeyId } = reservation;
    const windows = spendingWindows(reservation.createdAt);
    const limits = apiKeyId === null ? undefined : this.state.limits.get(keyOf(organizationId, apiKeyId));
    if (granted.greaterThan(0) && apiKeyId !== null && limits) {
      const tightest = tightestLimit(limits, this.spending(organizationId, apiKeyId, windows), windows);
      if (tightest !== null) granted = minMoney(granted, atLeastZero(tightest.room));
    }
    if (granted.greaterThan(0)) {
      this.state.held.set(organizationId, held.plus(granted));
      reservation.amount = reservation.amount.plus(granted);
      const lease = op.now.getTime() + op.leaseMs;
      const ceiling = reservation.createdAt.getTime() + op.ttlMs;
      this.grown.set(generationId, {
        organizationId,
        generationId,
        by: (this.grown.get(generationId)?.by ?? ZERO).plus(granted),
        expiresAt: new Date(Math.min(lease, ceiling)),
      });
      if (apiKeyId !== null && limits) this.count(organizationId, apiKeyId, windows, granted);
    }
    return {
      generationId,
      reservedAmount: formatMoney(reservation.amount),
      extendedAmount: formatMoney(granted),
    };
  }

  /** What the extensions of this batch add to running holds, one row per hold. */
  growths(): ReservationGrowth[] {
    return [...this.grown.values()];
  }

  /** What the holds of this batch add to the counters of keys with limits, one row per counter. */
  counterAdditions(): CounterValue[] {
    return [...this.added.values()];
  }

  private capByLimits(op: ReserveOperation, apiKeyId: string, reserved: Decimal): Decimal {
    const limits = this.state.limits.get(keyOf(op.organizationId, apiKeyId));
    if (!limits) return reserved;
    const spending = this.spending(op.organizationId, apiKeyId, op.windows);
    const tightest = tightestLimit(limits, spending, op.windows);
    if (tightest === null) return reserved;
    if (tightest.room.lessThanOrEqualTo(0) || tightest.room.lessThan(op.minAmount)) {
      throw new DomainError('spending_limit_exceeded', limitExceededMessage(tightest, op.minAmount));
    }
    return minMoney(reserved, tightest.room);
  }

  /** The key's counters in the windows, as the requests before in the batch left them. */
  private spending(organizationId: string, apiKeyId: string, windows: SpendingWindow[]) {
    return windows.map((window) => {
      const counter = this.counters.get(counterIdOf({ organizationId, apiKeyId, ...windowKey(window) }));
      return { period: window.period, held: counter?.held ?? ZERO, spent: counter?.spent ?? ZERO };
    });
  }

  private count(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
    reserved: Decimal,
  ): void {
    for (const window of windows) {
      const key: CounterKey = {
        organizationId,
        apiKeyId,
        ...windowKey(window),
      };
      const id = counterIdOf(key);
      const counter = this.counters.get(id);
      this.counters.set(id, {
        ...key,
        held: (counter?.held ?? ZERO).plus(reserved),
        spent: counter?.spent ?? ZERO,
      });
      const added = this.added.get(id);
      this.added.set(id, { ...key, held: (added?.held ?? ZERO).plus(reserved), spent: ZERO });
    }
  }
}

function windowKey(window: SpendingWindow): Pick<CounterKey, 'period' | 'windowStart'> {
  return { period: window.period, windowStart: window.start };
}
