import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EmbeddingList, EmbeddingsContracts, Principal } from '@gw/contracts';
import { EmbeddingListDto, EmbeddingRequestDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Response } from 'express';
import { newGenerationId } from '../generations/generation-cancellation';
import { requestGeneration } from '../generations/serve-generation';
import { UndeliveredGenerations } from '../generations/undelivered-generations';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { ApiPaidGenerationErrors } from '../docs/paid-generation-errors.decorator';

@ApiTags('embeddings')
@Controller('v1/embeddings')
export class EmbeddingsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly undelivered: UndeliveredGenerations,
  ) {}

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
    @Res({ passthrough: true }) response: Response,
  ): Promise<EmbeddingList> {
    return requestGeneration(
      { rpc: this.rpc, undelivered: this.undelivered },
      response,
      EmbeddingsContracts.create,
      { principal, body, generationId: newGenerationId() },
      { fromValidatedBody: true },
    );
  }
}
