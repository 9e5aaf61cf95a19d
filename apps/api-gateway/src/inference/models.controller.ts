import { Controller, Get, Query, ValidationPipe } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { InferenceContracts, ModelList } from '@gw/contracts';
import { ErrorEnvelopeDto, MODEL_ENDPOINTS, MODEL_TYPES, ModelListDto, ModelListQueryDto } from '@gw/dto';
import { RpcClient, validationErrorToDomainError } from '@gw/platform';

/**
 * The public catalogue ignores query parameters it does not know (cache busters, the paging other
 * catalogues take), as OpenAI's and OpenRouter's do; the ones it knows are still validated. The
 * parameter is typed loosely so the strict global pipe leaves it to this one.
 */
const KNOWN_PARAMETERS_ONLY = new ValidationPipe({
  whitelist: true,
  transform: true,
  expectedType: ModelListQueryDto,
  exceptionFactory: validationErrorToDomainError,
});

@ApiTags('models')
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly rpc: RpcClient) {}

  /** Public (DESIGN.md §5.6): the catalogue is what a client needs before it has a key. */
  @Get()
  @ApiOperation({
    summary: 'List the model catalogue',
    description:
      'Needs no credentials. `type` and `endpoint` filter the list; together, a model must match both. Other query parameters are ignored.',
  })
  @ApiQuery({ name: 'type', required: false, enum: MODEL_TYPES, description: 'Only models of this type' })
  @ApiQuery({
    name: 'endpoint',
    required: false,
    enum: MODEL_ENDPOINTS,
    description: 'Only models served on this endpoint path',
  })
  @ApiOkResponse({ type: ModelListDto })
  @ApiBadRequestResponse({ description: 'An unknown type or endpoint', type: ErrorEnvelopeDto })
  list(@Query(KNOWN_PARAMETERS_ONLY) query: Record<string, unknown>): Promise<ModelList> {
    const { type, endpoint } = query as ModelListQueryDto;
    return this.rpc.request(InferenceContracts.listModels, { type, endpoint });
  }
}
