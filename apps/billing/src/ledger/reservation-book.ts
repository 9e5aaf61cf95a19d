import { Decimal } from 'decimal.js';
import { DomainError, type ReserveCreditResponse } from '@gw/contracts';
import { limitExceededMessage, tightestLimit } from '../limits/limit-rules';
import { type SpendingWindow } from '../limits/spending-windows';
import { formatMoney, minMoney } from '../money/money';
import { insufficientBalanceMessage } from './balance-refusal';
import {
  type CounterKey,
  counterIdOf,
  type CounterValue,
  type KeyLimit,
  keyOf,
  type NewReservation,
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
}

const ZERO = new Decimal(0);

/**
 * The ledger of one batch in memory: each reserve is decided against the balance, the holds and
 * the counters as the requests before it in the batch left them, with the same rules and messages
 * a reserve alone follows, and the holds it makes are collected for one multi-row write.
 */
export class ReservationBook {
  private readonly counters = new Map<string, CounterValue>();
  private readonly added = new Map<string, CounterValue>();
  private readonly made = new Map<string, { organizationId: string; amount: Decimal }>();
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
      throw new DomainError(
        'insufficient_balance',
        `Insufficient balance: the balance is ${formatMoney(balance)} RUB and ${formatMoney(held)} RUB of it is held by requests in progress. Top up the balance to continue.`,
      );
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
      this.count(op, op.apiKeyId, reserved);
    }
    return { generationId, reservedAmount: formatMoney(reserved) };
  }

  /** What the holds of this batch add to the counters of keys with limits, one row per counter. */
  counterAdditions(): CounterValue[] {
    return [...this.added.values()];
  }

  private capByLimits(op: ReserveOperation, apiKeyId: string, reserved: Decimal): Decimal {
    const limits = this.state.limits.get(keyOf(op.organizationId, apiKeyId));
    if (!limits) return reserved;
    const spending = op.windows.map((window) => {
      const key = { organizationId: op.organizationId, apiKeyId, ...windowKey(window) };
      const counter = this.counters.get(counterIdOf(key));
      return { period: window.period, held: counter?.held ?? ZERO, spent: counter?.spent ?? ZERO };
    });
    const tightest = tightestLimit(limits, spending, op.windows);
    if (tightest === null) return reserved;
    if (tightest.room.lessThanOrEqualTo(0) || tightest.room.lessThan(op.minAmount)) {
      throw new DomainError('spending_limit_exceeded', limitExceededMessage(tightest, op.minAmount));
    }
    return minMoney(reserved, tightest.room);
  }

  private count(op: ReserveOperation, apiKeyId: string, reserved: Decimal): void {
    for (const window of op.windows) {
      const key: CounterKey = {
        organizationId: op.organizationId,
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
