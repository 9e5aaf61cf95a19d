import { Controller } from '@nestjs/common';
import { BillingContracts, KeyLimits, SetKeyLimitsRequest } from '@gw/contracts';
import { HandlesRpc } from '@gw/platform';
import { SpendingLimitService } from './spending-limit.service';

@Controller()
export class SpendingLimitHandler {
  constructor(private readonly limits: SpendingLimitService) {}

  @HandlesRpc(BillingContracts.setKeyLimits)
  set(request: SetKeyLimitsRequest): Promise<KeyLimits> {
    return this.limits.set(request);
  }
}
