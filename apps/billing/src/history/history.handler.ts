import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  BillingContracts,
  GetHistoryRequest,
  HistoryDetail,
  HistoryPage,
  ListHistoryRequest,
} from '@gw/contracts';
import { HistoryQueryDto } from '@gw/dto';
import { HandlesRpc, MessageValidationPipe } from '@gw/platform';
import { HistoryService } from './history.service';

@Controller()
export class HistoryHandler {
  constructor(private readonly history: HistoryService) {}

  /**
   * The query is the public API's and is validated again here with the gateway's own DTO (a service
   * trusts no caller's shape); its faults name the query field itself, as at the gateway.
   */
  @HandlesRpc(BillingContracts.listHistory)
  list(
    request: ListHistoryRequest,
    @Payload('query', new MessageValidationPipe(HistoryQueryDto)) query: HistoryQueryDto,
  ): Promise<HistoryPage> {
    return this.history.list(request.principal, query);
  }

  @HandlesRpc(BillingContracts.getHistory)
  get(request: GetHistoryRequest): Promise<HistoryDetail> {
    return this.history.get(request.principal, request.id);
  }
}
