import { Controller } from '@nestjs/common';
import {
  AddCreditsRequest,
  BalanceResponse,
  BillingContracts,
  GetBalanceRequest,
  RenewReservationLeasesRequest,
  RenewReservationLeasesResponse,
  ReserveCreditRequest,
  ReserveCreditResponse,
} from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { LedgerService } from './ledger.service';

@Controller()
export class LedgerHandler {
  constructor(private readonly ledger: LedgerService) {}

  @HandlesRpc(BillingContracts.reserve)
  reserve(request: ReserveCreditRequest): Promise<ReserveCreditResponse> {
    return this.ledger.reserve(request);
  }

  @HandlesRpc(BillingContracts.getBalance)
  balance(request: GetBalanceRequest): Promise<BalanceResponse> {
    return this.ledger.balance(request.organizationId);
  }

  @HandlesRpc(BillingContracts.renewLeases)
  renewLeases(request: RenewReservationLeasesRequest): Promise<RenewReservationLeasesResponse> {
    return this.ledger.renewLeases(request.leases);
  }

  @HandlesRpc(BillingContracts.addCredits)
  addCredits(request: AddCreditsRequest): Promise<BalanceResponse> {
    return this.ledger.addCredits(request);
  }
}
