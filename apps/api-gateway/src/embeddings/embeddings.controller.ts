import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EmbeddingList, EmbeddingsContracts, Principal } from '@gw/contracts';
import { EmbeddingListDto, EmbeddingRequestDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { newGenerationId } from '../generations/generation-cancellation';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

/** The NATS call must outlast the service's own upstream timeout. */
const EMBEDDINGS_RPC_TIMEOUT_MS = 600_000;

@ApiTags('embeddings')
@Controller('v1/embeddings')
export class EmbeddingsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Create embeddings',
    description:
      'One data item per input, `index` its position. The model alias notation does not apply here: a model with `@` is unknown.',
  })
  @ApiOkResponse({ type: EmbeddingListDto })
  @ApiPaidGenerationErrors('Invalid body, unknown model, or dimensions the model does not take')
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: EmbeddingRequestDto,
  ): Promise<EmbeddingList> {
    return this.rpc.request(
      EmbeddingsContracts.create,
      { principal, body, generationId: newGenerationId() },
      { timeoutMs: EMBEDDINGS_RPC_TIMEOUT_MS },
    );
  }
}
