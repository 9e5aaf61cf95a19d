import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import {
  AddCreditsRequest,
  BalanceResponse,
  DomainError,
  RenewReservationLeasesResponse,
  ReservationLease,
  ReserveCreditRequest,
  ReserveCreditResponse,
} from '@gw/contracts';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { BILLING_CLOCK, Clock } from '../clock';
import { limitExceededMessage, tightestLimit } from '../limits/limit-rules';
import { spendingWindows } from '../limits/spending-windows';
import { formatMoney, MAX_MONEY, minMoney, parseCreditAmount, parseMoney } from '../money/money';
import { insufficientBalanceMessage } from './balance-refusal';
import { LedgerRepository, LedgerTransaction } from './ledger.repository';
import { reservationContext } from './reservation-context';

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const MAX_REASON_LENGTH = 500;

/** Balance, credits and holds. Every change runs under the account's row lock, so no two can interleave. */
@Injectable()
export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(BILLING_ENV) private readonly env: BillingEnv,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  async balance(organizationId: string): Promise<BalanceResponse> {
    return { amount: formatMoney(await this.ledger.balance(organizationId)) };
  }

  /**
   * Holds min(maxAmount, available, room under every limit of the key) for one generation,
   * available being the balance minus what running generations hold. The account row lock is taken
   * first, so the key's counters are read and written by one transaction at a time on every
   * replica. A repeated reserve of the same generation answers the existing hold. The shape of the
   * request (ids, decimal strings) was checked by its contract class before it got here.
   */
  async reserve(request: ReserveCreditRequest): Promise<ReserveCreditResponse> {
    const { generationId, organizationId } = request;
    const maxAmount = parseMoney(request.maxAmount, 'maxAmount', Decimal.ROUND_UP);
    const minAmount = parseMoney(request.minAmount, 'minAmount', Decimal.ROUND_UP);
    if (minAmount.greaterThan(maxAmount)) {
      throw new DomainError('invalid_request', 'minAmount must not exceed maxAmount', 'minAmount');
    }
    const apiKeyId = request.apiKeyId ?? null;
    const context = reservationContext(request);
    const now = this.clock.now();
    const windows = spendingWindows(now);
    return this.ledger.transaction(async (tx) => {
      const balance = await tx.lockAccount(organizationId);
      const { held, existing } = await tx.holdsBeforeReserve(organizationId, generationId);
      if (existing) return { generationId, reservedAmount: formatMoney(existing) };
      const available = balance.minus(held);
      let reserved = minMoney(maxAmount, available);
      if (available.lessThanOrEqualTo(0)) {
        throw new DomainError(
          'insufficient_balance',
          `Insufficient balance: the balance is ${formatMoney(balance)} RUB and ${formatMoney(held)} RUB of it is held by requests in progress. Top up the balance to continue.`,
        );
      }
      if (reserved.lessThan(minAmount)) {
        throw new DomainError(
          'insufficient_balance',
          insufficientBalanceMessage(available, minAmount, context?.apiType),
        );
      }
      if (apiKeyId !== null)
        reserved = await this.capByLimits(tx, organizationId, apiKeyId, windows, reserved, minAmount);
      const inserted = await tx.insertReservation({
        generationId,
        organizationId,
        apiKeyId,
        amount: reserved,
        createdAt: now,
        expiresAt: new Date(
          now.getTime() + Math.min(this.env.RESERVATION_LEASE_MS, this.env.RESERVATION_TTL_MS),
        ),
        context,
      });
      if (!inserted)
        throw new DomainError(
          'conflict',
          `Generation ${generationId} already has a reservation`,
          'generationId',
        );
      if (apiKeyId !== null)
        await tx.addToCounters(organizationId, apiKeyId, windows, reserved, new Decimal(0));
      return { generationId, reservedAmount: formatMoney(reserved) };
    });
  }

  /** Extends each hold by one lease from now, never past its TTL counted from when it was made. */
  async renewLeases(leases: ReservationLease[]): Promise<RenewReservationLeasesResponse> {
    if (leases.length === 0) return { renewed: 0 };
    const renewed = await this.ledger.renewLeases(
      leases,
      this.clock.now(),
      this.env.RESERVATION_LEASE_MS,
      this.env.RESERVATION_TTL_MS,
    );
    return { renewed };
  }

  private async capByLimits(
    tx: LedgerTransaction,
    organizationId: string,
    apiKeyId: string,
    windows: ReturnType<typeof spendingWindows>,
    reserved: Decimal,
    minAmount: Decimal,
  ): Promise<Decimal> {
    const limits = await tx.keyLimits(organizationId, apiKeyId);
    if (limits.length === 0) return reserved;
    const tightest = tightestLimit(
      limits,
      await tx.windowSpending(organizationId, apiKeyId, windows),
      windows,
    );
    if (tightest === null) return reserved;
    if (tightest.room.lessThanOrEqualTo(0) || tightest.room.lessThan(minAmount)) {
      throw new DomainError('spending_limit_exceeded', limitExceededMessage(tightest, minAmount));
    }
    return minMoney(reserved, tightest.room);
  }

  /** An Idempotency-Key credits once; a retry answers the balance that the first credit produced. */
  async addCredits(request: AddCreditsRequest): Promise<BalanceResponse> {
    const amount = parseCreditAmount(request.amount);
    const idempotencyKey = request.idempotencyKey ?? null;
    if (
      idempotencyKey !== null &&
      (typeof idempotencyKey !== 'string' ||
        idempotencyKey.length < 1 ||
        idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    ) {
      throw new DomainError(
        'invalid_request',
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
        'Idempotency-Key',
      );
    }
    const reason = request.reason ?? null;
    if (reason !== null && (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH)) {
      throw new DomainError(
        'invalid_request',
        `reason must be a string of at most ${MAX_REASON_LENGTH} characters`,
        'reason',
      );
    }
    const { organizationId } = request;
    return this.ledger.transaction(async (tx) => {
      const balance = await tx.lockAccount(organizationId);
      if (idempotencyKey !== null) {
        const earlier = await tx.findCredit(organizationId, idempotencyKey);
        if (earlier && !earlier.amount.equals(amount)) {
          throw new DomainError(
            'conflict',
            `Idempotency-Key was already used for a credit of ${formatMoney(earlier.amount)} RUB; use a new key for a different amount`,
            'Idempotency-Key',
          );
        }
        if (earlier) return { amount: formatMoney(earlier.balanceAfter) };
      }
      const balanceAfter = balance.plus(amount);
      if (balanceAfter.greaterThan(MAX_MONEY)) {
        throw new DomainError(
          'invalid_request',
          `The balance cannot exceed ${formatMoney(MAX_MONEY)} RUB`,
          'amount',
        );
      }
      await tx.setBalance(organizationId, balanceAfter);
      await tx.appendEntry({ organizationId, kind: 'credit', amount, balanceAfter, idempotencyKey, reason });
      return { amount: formatMoney(balanceAfter) };
    });
  }
}
