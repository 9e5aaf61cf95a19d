import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BalanceResponse, BillingContracts, Principal } from '@gw/contracts';
import { BalanceDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';

@ApiTags('balance')
@Controller('v1/balance')
export class BalanceController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: "The organization's balance in roubles" })
  @ApiOkResponse({ type: BalanceDto })
  balance(@CurrentPrincipal() principal: Principal): Promise<BalanceResponse> {
    return this.rpc.request(BillingContracts.getBalance, { organizationId: principal.organizationId });
  }
}
