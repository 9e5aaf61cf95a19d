import { Controller } from '@nestjs/common';
import { BillingContracts, ExtendReservationRequest, ExtendReservationResponse } from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { HoldExtensionService } from './hold-extension.service';

@Controller()
export class HoldExtensionHandler {
  constructor(private readonly holds: HoldExtensionService) {}

  @HandlesRpc(BillingContracts.extendReservation)
  extend(request: ExtendReservationRequest): Promise<ExtendReservationResponse> {
    return this.holds.extend(request);
  }
}
