import { Inject, Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import {
  DomainError,
  KeyLimits,
  SetKeyLimitsRequest,
  SPENDING_LIMIT_PERIODS,
  SpendingLimit,
  SpendingLimitPeriod,
} from '@gw/contracts';
import { BILLING_CLOCK, Clock } from '../clock';
import { formatMoney } from '../money/money';
import { spendingWindows } from './spending-windows';
import { SpendingLimitRepository, StoredLimit } from './spending-limit.repository';

/**
 * Billing enforces the limits; auth has already checked that the key is the organization's and the
 * caller may set them. The ids, periods and amounts were checked by the contract class.
 */
@Injectable()
export class SpendingLimitService {
  constructor(
    private readonly limits: SpendingLimitRepository,
    @Inject(BILLING_CLOCK) private readonly clock: Clock,
  ) {}

  async set(request: SetKeyLimitsRequest): Promise<KeyLimits> {
    const stored = await this.limits.replace(
      request.organizationId,
      request.apiKeyId,
      parseLimits(request.limits),
      spendingWindows(this.clock.now()),
    );
    return { apiKeyId: request.apiKeyId, limits: inPeriodOrder(stored) };
  }
}

/** A period named twice is refused here: the class checks each limit alone. */
function parseLimits(limits: SpendingLimit[]): StoredLimit[] {
  const seen = new Set<SpendingLimitPeriod>();
  return limits.map(({ period, amount }, index) => {
    if (seen.has(period)) {
      throw new DomainError(
        'invalid_request',
        `limits name the ${period} period twice`,
        `limits[${index}].period`,
      );
    }
    seen.add(period);
    return { period, amount: new Decimal(amount) };
  });
}

function inPeriodOrder(limits: StoredLimit[]): KeyLimits['limits'] {
  return [...limits]
    .sort((a, b) => SPENDING_LIMIT_PERIODS.indexOf(a.period) - SPENDING_LIMIT_PERIODS.indexOf(b.period))
    .map((limit) => ({ period: limit.period, amount: formatMoney(limit.amount) }));
}
