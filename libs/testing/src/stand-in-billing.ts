import { Controller, DynamicModule, Inject, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BillingContracts,
  DomainError,
  ExtendReservationRequest,
  ExtendReservationResponse,
  ReserveCreditRequest,
  ReserveCreditResponse,
} from '@gw/contracts';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';

/** The one organization the stand-in billing refuses, for lack of money. */
export const POOR_ORGANIZATION = randomUUID();

const RESERVE_REQUESTS = Symbol('RESERVE_REQUESTS');

/**
 * Billing where it is not under test: it reserves whatever is asked, except for POOR_ORGANIZATION,
 * and extends every hold by what is asked.
 */
@Controller()
class StandInReserve {
  private readonly holds = new Map<string, Decimal>();

  constructor(@Inject(RESERVE_REQUESTS) private readonly requests: ReserveCreditRequest[]) {}

  @MessagePattern(BillingContracts.reserve.subject)
  reserve(@Payload() request: ReserveCreditRequest): ReserveCreditResponse {
    this.requests.push(request);
    if (request.organizationId === POOR_ORGANIZATION)
      throw new DomainError('insufficient_balance', 'Insufficient balance');
    this.holds.set(request.generationId, new Decimal(request.maxAmount));
    return { generationId: request.generationId, reservedAmount: request.maxAmount };
  }

  @MessagePattern(BillingContracts.extendReservation.subject)
  extend(@Payload() request: ExtendReservationRequest): ExtendReservationResponse {
    const held = (this.holds.get(request.generationId) ?? new Decimal(0)).plus(request.amount);
    this.holds.set(request.generationId, held);
    return {
      generationId: request.generationId,
      reservedAmount: held.toFixed(8),
      extendedAmount: new Decimal(request.amount).toFixed(8),
    };
  }
}

@Module({ controllers: [StandInReserve] })
class StandInBillingModule {}

/** The stand-in billing, to start as the `billing` service; every reservation it receives is pushed onto `requests`. */
export function standInBilling(requests: ReserveCreditRequest[] = []): DynamicModule {
  return { module: StandInBillingModule, providers: [{ provide: RESERVE_REQUESTS, useValue: requests }] };
}
