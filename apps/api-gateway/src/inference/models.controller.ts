import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InferenceContracts, ModelList } from '@gw/contracts';
import { ErrorEnvelopeDto, ModelListDto, ModelListQueryDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';

@ApiTags('models')
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly rpc: RpcClient) {}

  /** Public (DESIGN.md §5.6): the catalogue is what a client needs before it has a key. */
  @Get()
  @ApiOperation({
    summary: 'List the model catalogue',
    description: 'Needs no credentials. `type` and `endpoint` filter the list; together, a model must match both.',
  })
  @ApiOkResponse({ type: ModelListDto })
  @ApiBadRequestResponse({ description: 'An unknown type or endpoint', type: ErrorEnvelopeDto })
  list(@Query() query: ModelListQueryDto): Promise<ModelList> {
    return this.rpc.request(InferenceContracts.listModels, { ...query });
  }
}
