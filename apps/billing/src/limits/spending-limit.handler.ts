import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BillingContracts, KeyLimits, SetKeyLimitsRequest } from '@gw/contracts';
import { SpendingLimitService } from './spending-limit.service';

@Controller()
export class SpendingLimitHandler {
  constructor(private readonly limits: SpendingLimitService) {}

  @MessagePattern(BillingContracts.setKeyLimits.subject)
  set(@Payload() request: SetKeyLimitsRequest): Promise<KeyLimits> {
    return this.limits.set(request);
  }
}
