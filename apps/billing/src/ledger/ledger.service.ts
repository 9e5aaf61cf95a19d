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
import { spendingWindows } from '../limits/spending-windows';
import { formatMoney, MAX_MONEY, parseCreditAmount, parseMoney } from '../money/money';
import { LedgerBatcher } from './ledger-batcher.service';
import { LedgerRepository } from './ledger.repository';
import { reservationContext } from './reservation-context';

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const MAX_REASON_LENGTH = 500;

/** Balance, credits and holds. Every change runs under the account's row lock, so no two can interleave. */
@Injectable()
export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly batcher: LedgerBatcher,
    @Inject(BILLING_ENV) private readonly env: BillingEnv,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  async balance(organizationId: string): Promise<BalanceResponse> {
    return { amount: formatMoney(await this.ledger.balance(organizationId)) };
  }

  /**
   * Holds min(maxAmount, available, room under every limit of the key) for one generation,
   * available being the balance minus what running generations hold (ReservationBook has the
   * rules), in a group commit with the reserves that arrive at the same time (LedgerBatcher). The
   * account row lock is taken first, so the key's counters are read and written by one transaction
   * at a time on every replica. A repeated reserve of the same generation answers the existing
   * hold. The shape of the request (ids, decimal strings) was checked by its contract class.
   */
  async reserve(request: ReserveCreditRequest): Promise<ReserveCreditResponse> {
    const { generationId, organizationId } = request;
    const maxAmount = parseMoney(request.maxAmount, 'maxAmount', Decimal.ROUND_UP);
    const minAmount = parseMoney(request.minAmount, 'minAmount', Decimal.ROUND_UP);
    if (minAmount.greaterThan(maxAmount)) {
      throw new DomainError('invalid_request', 'minAmount must not exceed maxAmount', 'minAmount');
    }
    const createdAt = this.clock.now();
    return this.batcher.reserve({
      kind: 'reserve',
      generationId,
      organizationId,
      apiKeyId: request.apiKeyId ?? null,
      maxAmount,
      minAmount,
      context: reservationContext(request),
      createdAt,
      expiresAt: new Date(
        createdAt.getTime() + Math.min(this.env.RESERVATION_LEASE_MS, this.env.RESERVATION_TTL_MS),
      ),
      windows: spendingWindows(createdAt),
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
