import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BillingContracts, HistoryDetail, HistoryPage, Principal } from '@gw/contracts';
import { HistoryQueryDto } from '@gw/dto';
import { HistoryService } from './history.service';

@Controller()
export class HistoryHandler {
  constructor(private readonly history: HistoryService) {}

  /** The query is validated again here with the gateway's own DTO: a service trusts no caller's shape. */
  @MessagePattern(BillingContracts.listHistory.subject)
  list(
    @Payload('principal') principal: Principal,
    @Payload('query') query: HistoryQueryDto,
  ): Promise<HistoryPage> {
    return this.history.list(principal, query);
  }

  @MessagePattern(BillingContracts.getHistory.subject)
  get(@Payload('principal') principal: Principal, @Payload('id') id: string): Promise<HistoryDetail> {
    return this.history.get(principal, String(id));
  }
}
