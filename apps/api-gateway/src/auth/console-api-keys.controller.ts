import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiKeyList, AuthContracts, CreatedApiKey, KeyLimits, Success, UserPrincipal } from '@gw/contracts';
import {
  ApiKeyIdParamsDto,
  ApiKeyLimitsDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  ErrorEnvelopeDto,
  SetApiKeyLimitsDto,
  SuccessDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { ApiKeyCache } from './api-key-cache';

/** Console key management: JWT only; every member lists, organization admins create and revoke. */
@ApiTags('console')
@Authenticated('user')
@Controller('v1/console/api-keys')
export class ConsoleApiKeysController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly cache: ApiKeyCache,
  ) {}

  @Get()
  @ApiOperation({ summary: "List the organization's API keys" })
  @ApiOkResponse({ type: ApiKeyListDto })
  list(@CurrentPrincipal() principal: UserPrincipal): Promise<ApiKeyList> {
    return this.rpc.request(AuthContracts.consoleListApiKeys, { principal });
  }

  @Post()
  @ApiOperation({ summary: 'Create an API key (organization admins); the key is shown only in this answer' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiBadRequestResponse({ description: 'Invalid input', type: ErrorEnvelopeDto })
  create(
    @CurrentPrincipal() principal: UserPrincipal,
    @Body() body: CreateApiKeyDto,
  ): Promise<CreatedApiKey> {
    return this.rpc.request(AuthContracts.consoleCreateApiKey, {
      principal,
      name: body.name,
      ...(body.limits ? { limits: body.limits } : {}),
    });
  }

  @Put(':id/limits')
  @HttpCode(200)
  @ApiOperation({
    summary: "Replace an API key's spending limits (organization admins)",
    description:
      'One limit per period (day, week, month, total); an empty list removes them. day, week (from Monday) and month reset at UTC calendar boundaries. A request whose worst-case cost does not fit under every limit is refused with 402 spending_limit_exceeded.',
  })
  @ApiOkResponse({ type: ApiKeyLimitsDto })
  @ApiBadRequestResponse({ description: 'Invalid limits', type: ErrorEnvelopeDto })
  @ApiForbiddenResponse({ description: 'Not an admin of the organization', type: ErrorEnvelopeDto })
  @ApiNotFoundResponse({ description: "Unknown key, or another organization's", type: ErrorEnvelopeDto })
  setLimits(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param() params: ApiKeyIdParamsDto,
    @Body() body: SetApiKeyLimitsDto,
  ): Promise<KeyLimits> {
    return this.rpc.request(AuthContracts.consoleSetApiKeyLimits, {
      principal,
      id: params.id,
      limits: body.limits,
    });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke an API key (organization admins); it stops working at once' })
  @ApiOkResponse({ type: SuccessDto })
  @ApiNotFoundResponse({ description: "Unknown key, or another organization's", type: ErrorEnvelopeDto })
  async revoke(
    @CurrentPrincipal() principal: UserPrincipal,
    @Param() params: ApiKeyIdParamsDto,
  ): Promise<Success> {
    const result = await this.rpc.request(AuthContracts.consoleRevokeApiKey, { principal, id: params.id });
    // The broadcast reaches this replica too, but possibly after the client's next request.
    this.cache.invalidateApiKeyId(params.id);
    return result;
  }
}
