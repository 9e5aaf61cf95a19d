import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { BillingContracts, HistoryDetail, HistoryPage, Principal } from '@gw/contracts';
import { ErrorEnvelopeDto, HistoryDetailDto, HistoryPageDto, HistoryQueryDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';

@ApiTags('history')
@Controller('v1/history/generations')
export class HistoryController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    summary: 'List generations',
    description:
      "An API key sees only its own generations; a console session (JWT) sees its organization's and may filter by apiKeyId or withoutApiKey (an API key using either gets 403).",
  })
  @ApiOkResponse({ type: HistoryPageDto })
  @ApiBadRequestResponse({ description: 'Invalid query parameter', type: ErrorEnvelopeDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: HistoryQueryDto): Promise<HistoryPage> {
    return this.rpc.request(BillingContracts.listHistory, { principal, query: { ...query } });
  }

  @Get(':id')
  @Authenticated()
  @ApiOperation({ summary: 'One generation in detail' })
  @ApiParam({ name: 'id', example: 'gen_01JD3X9Q2M7K' })
  @ApiOkResponse({ type: HistoryDetailDto })
  @ApiNotFoundResponse({
    description: "Unknown id, or another organization's or API key's generation",
    type: ErrorEnvelopeDto,
  })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<HistoryDetail> {
    return this.rpc.request(BillingContracts.getHistory, { principal, id });
  }
}
