import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import { DomainError, type ExtendReservationRequest, type ExtendReservationResponse } from '@gw/contracts';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { BILLING_CLOCK, Clock } from '../clock';
import { tightestLimit } from '../limits/limit-rules';
import { spendingWindows } from '../limits/spending-windows';
import { formatMoney, minMoney, parseMoney } from '../money/money';
import {
  type HeldReservation,
  type KeyLimit,
  keyOf,
  LedgerRepository,
  type LedgerTransaction,
} from './ledger.repository';

const ZERO = new Decimal(0);

const atLeastZero = (amount: Decimal): Decimal => (amount.greaterThan(0) ? amount : ZERO);

/**
 * Grows the hold of a running generation as its answer gets longer, so that the first hold can be
 * small: a generation holds about what it will cost instead of the most it could.
 */
@Injectable()
export class HoldExtensionService {
  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(BILLING_ENV) private readonly env: BillingEnv,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Adds min(amount, balance − every hold, room under the key's tightest limit) to the hold, under
   * the account row lock that reserve and settlement take first, so concurrent reserves, extensions
   * and settlements of an organization never hold more than its balance. The limit room is counted
   * in the windows the reservation was made in, where its settlement will free and charge it.
   * Granting nothing is an answer, not an error: the producer then stops the generation. A hold
   * that is settled, released or past its expiry is not found; the extension renews its lease.
   */
  async extend(request: ExtendReservationRequest): Promise<ExtendReservationResponse> {
    const amount = parseMoney(request.amount, 'amount', Decimal.ROUND_UP);
    const { organizationId, generationId } = request;
    const now = this.clock.now();
    return this.ledger.transaction(async (tx) => {
      const balance = await tx.lockAccount(organizationId);
      const reservation = await tx.findReservation(organizationId, generationId);
      if (!reservation || reservation.status !== 'held' || reservation.expiresAt.getTime() < now.getTime()) {
        throw new DomainError(
          'not_found',
          `Generation ${generationId} has no running reservation to extend`,
          'generationId',
        );
      }
      const free = atLeastZero(balance.minus(await tx.heldTotal(organizationId)));
      const limits =
        reservation.apiKeyId === null
          ? []
          : ((await tx.limitsOfKeys([{ organizationId, apiKeyId: reservation.apiKeyId }])).get(
              keyOf(organizationId, reservation.apiKeyId),
            ) ?? []);
      let granted = minMoney(amount, free);
      if (granted.greaterThan(0) && reservation.apiKeyId !== null && limits.length > 0)
        granted = await this.capByLimit(tx, reservation, reservation.apiKeyId, limits, granted);
      if (granted.greaterThan(0)) {
        const lease = now.getTime() + this.env.RESERVATION_LEASE_MS;
        const ceiling = reservation.createdAt.getTime() + this.env.RESERVATION_TTL_MS;
        await tx.growReservation(organizationId, generationId, granted, new Date(Math.min(lease, ceiling)));
        // Only keys with limits keep counters (decision 91).
        if (reservation.apiKeyId !== null && limits.length > 0) {
          await tx.addToCounters(
            organizationId,
            reservation.apiKeyId,
            spendingWindows(reservation.createdAt),
            granted,
            ZERO,
          );
        }
      }
      return {
        generationId,
        reservedAmount: formatMoney(reservation.amount.plus(granted)),
        extendedAmount: formatMoney(granted),
      };
    });
  }

  /** `amount`, lowered to what the key's tightest limit still lets its holds grow by. */
  private async capByLimit(
    tx: LedgerTransaction,
    reservation: HeldReservation,
    apiKeyId: string,
    limits: KeyLimit[],
    amount: Decimal,
  ): Promise<Decimal> {
    const windows = spendingWindows(reservation.createdAt);
    const spending = await tx.counters(
      windows.map((w) => ({
        organizationId: reservation.organizationId,
        apiKeyId,
        period: w.period,
        windowStart: w.start,
      })),
    );
    const tightest = tightestLimit(limits, spending, windows);
    return tightest === null ? amount : minMoney(amount, atLeastZero(tightest.room));
  }
}
