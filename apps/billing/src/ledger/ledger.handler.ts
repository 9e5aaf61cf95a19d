import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddCreditsRequest,
  BalanceResponse,
  BillingContracts,
  GetBalanceRequest,
  ReserveCreditRequest,
  ReserveCreditResponse,
} from '@gw/contracts';
import { LedgerService } from './ledger.service';

@Controller()
export class LedgerHandler {
  constructor(private readonly ledger: LedgerService) {}

  @MessagePattern(BillingContracts.reserve.subject)
  reserve(@Payload() request: ReserveCreditRequest): Promise<ReserveCreditResponse> {
    return this.ledger.reserve(request);
  }

  @MessagePattern(BillingContracts.getBalance.subject)
  balance(@Payload() request: GetBalanceRequest): Promise<BalanceResponse> {
    return this.ledger.balance(request.organizationId);
  }

  @MessagePattern(BillingContracts.addCredits.subject)
  addCredits(@Payload() request: AddCreditsRequest): Promise<BalanceResponse> {
    return this.ledger.addCredits(request);
  }
}
