import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { type ApiKeyPrincipal, OAuthContracts, type OAuthIssuedKey, type OAuthUserInfo } from '@gw/contracts';
import { ErrorEnvelopeDto, OAuthIssuedKeyDto, OAuthTokenRequestDto, OAuthUserInfoDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { Authenticated, CurrentPrincipal } from '../security/authenticated.decorator';
import { TokenRateLimitGuard } from './token-rate-limit.guard';

/** The server half of the OAuth flow (DESIGN.md §5.7): JSON, bearer or nothing, no cookies, so CORS stays open. */
@ApiTags('oauth')
@Controller('auth')
export class OAuthTokenController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('token')
  @HttpCode(200)
  @UseGuards(TokenRateLimitGuard)
  @ApiOperation({
    summary: 'Exchange an authorization code and its PKCE verifier for an API key',
    description:
      'Single use, within 5 minutes, with the exact callback_url of the authorization. 5 requests per minute per client address.',
  })
  @ApiOkResponse({ type: OAuthIssuedKeyDto })
  @ApiBadRequestResponse({
    description:
      'Невалидный код авторизации | Код авторизации уже использован | Код авторизации истёк | callback_url не совпадает | Невалидный code_verifier',
    type: ErrorEnvelopeDto,
  })
  @ApiTooManyRequestsResponse({ description: 'Too Many Requests; see Retry-After', type: ErrorEnvelopeDto })
  exchange(@Body() body: OAuthTokenRequestDto): Promise<OAuthIssuedKey> {
    return this.rpc.request(OAuthContracts.exchangeCode, {
      code: body.code,
      codeVerifier: body.code_verifier,
      callbackUrl: body.callback_url,
    });
  }

  @Get('userinfo')
  @Authenticated('api_key')
  @ApiOperation({
    summary: 'The user who authorized the key: id, plus name and email where its scopes grant them',
  })
  @ApiOkResponse({ type: OAuthUserInfoDto })
  userInfo(@CurrentPrincipal() principal: ApiKeyPrincipal): Promise<OAuthUserInfo> {
    return this.rpc.request(OAuthContracts.userInfo, {
      organizationId: principal.organizationId,
      apiKeyId: principal.apiKeyId,
    });
  }
}
