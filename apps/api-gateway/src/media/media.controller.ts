import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MediaContracts, MediaGeneration, Principal } from '@gw/contracts';
import { ErrorEnvelopeDto, MediaGenerationDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';

@ApiTags('media')
@Controller()
export class MediaController {
  constructor(private readonly rpc: RpcClient) {}

  @Get(['v1/media/:id', 'v2/media/:id'])
  @Authenticated()
  @ApiOperation({ summary: 'Status and result of a media generation (poll every 3 to 5 seconds)' })
  @ApiOkResponse({ type: MediaGenerationDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<MediaGeneration> {
    return this.rpc.request(MediaContracts.getGeneration, { principal, id });
  }
}
