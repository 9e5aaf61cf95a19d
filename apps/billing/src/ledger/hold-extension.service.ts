import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import { type ExtendReservationRequest, type ExtendReservationResponse } from '@gw/contracts';
import { BILLING_ENV, BillingEnv } from '../billing.env';
import { BILLING_CLOCK, Clock } from '../clock';
import { parseMoney } from '../money/money';
import { LedgerBatcher } from './ledger-batcher.service';

/**
 * Grows the hold of a running generation as its answer gets longer, so that the first hold can be
 * small: a generation holds about what it will cost instead of the most it could. Extensions run in
 * the ledger's group commits with the reserves (ReservationBook.extend has the rules), under the
 * account row lock that reserve and settlement take first, so concurrent reserves, extensions and
 * settlements of an organization never hold more than its balance.
 */
@Injectable()
export class HoldExtensionService {
  constructor(
    private readonly batcher: LedgerBatcher,
    @Inject(BILLING_ENV) private readonly env: BillingEnv,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  extend(request: ExtendReservationRequest): Promise<ExtendReservationResponse> {
    return this.batcher.extend({
      kind: 'extend',
      generationId: request.generationId,
      organizationId: request.organizationId,
      amount: parseMoney(request.amount, 'amount', Decimal.ROUND_UP),
      now: this.clock.now(),
      leaseMs: this.env.RESERVATION_LEASE_MS,
      ttlMs: this.env.RESERVATION_TTL_MS,
    });
  }
}
