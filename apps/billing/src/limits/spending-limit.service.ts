import { Injectable } from '@nestjs/common';
import { Decimal } from 'decimal.js';
import {
  DomainError,
  KeyLimits,
  SetKeyLimitsRequest,
  SPENDING_LIMIT_PERIODS,
  SpendingLimitPeriod,
} from '@gw/contracts';
import { isLimitAmount } from '@gw/dto';
import { formatMoney } from '../money/money';
import { SpendingLimitRepository, StoredLimit } from './spending-limit.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Billing enforces the limits; auth has already checked that the key is the organization's and the caller may set them. */
@Injectable()
export class SpendingLimitService {
  constructor(private readonly limits: SpendingLimitRepository) {}

  async set(request: SetKeyLimitsRequest): Promise<KeyLimits> {
    for (const param of ['organizationId', 'apiKeyId'] as const) {
      if (typeof request[param] !== 'string' || !UUID.test(request[param])) {
        throw new DomainError('invalid_request', `${param} must be a UUID`, param);
      }
    }
    const stored = await this.limits.replace(
      request.organizationId,
      request.apiKeyId,
      parseLimits(request.limits),
    );
    return { apiKeyId: request.apiKeyId, limits: inPeriodOrder(stored) };
  }
}

function parseLimits(value: unknown): StoredLimit[] {
  if (!Array.isArray(value)) throw new DomainError('invalid_request', 'limits must be an array', 'limits');
  const seen = new Set<SpendingLimitPeriod>();
  return value.map((item: unknown, index) => {
    const limit = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const period = limit['period'] as SpendingLimitPeriod;
    if (!SPENDING_LIMIT_PERIODS.includes(period)) {
      throw new DomainError(
        'invalid_request',
        `period must be one of ${SPENDING_LIMIT_PERIODS.join(', ')}`,
        `limits[${index}].period`,
      );
    }
    if (seen.has(period)) {
      throw new DomainError(
        'invalid_request',
        `limits name the ${period} period twice`,
        `limits[${index}].period`,
      );
    }
    seen.add(period);
    if (!isLimitAmount(limit['amount'])) {
      throw new DomainError(
        'invalid_request',
        'amount must be a non-negative decimal string with at most 12 integer digits and 8 decimals, e.g. "10.00"',
        `limits[${index}].amount`,
      );
    }
    return { period, amount: new Decimal(limit['amount']) };
  });
}

function inPeriodOrder(limits: StoredLimit[]): KeyLimits['limits'] {
  return [...limits]
    .sort((a, b) => SPENDING_LIMIT_PERIODS.indexOf(a.period) - SPENDING_LIMIT_PERIODS.indexOf(b.period))
    .map((limit) => ({ period: limit.period, amount: formatMoney(limit.amount) }));
}
