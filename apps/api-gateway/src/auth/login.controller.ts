import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AccessToken, AuthContracts } from '@gw/contracts';
import { AccessTokenDto, ErrorEnvelopeDto, LoginDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import type { Request, Response } from 'express';
import { LoginThrottle } from '../rate-limits/credential-attempt-throttle';

@ApiTags('auth')
@Controller('auth')
export class LoginController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly throttle: LoginThrottle,
  ) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Console login: a JWT carrying the user, the organization and the role' })
  @ApiOkResponse({ type: AccessTokenDto })
  @ApiBadRequestResponse({ description: 'Invalid input', type: ErrorEnvelopeDto })
  @ApiUnauthorizedResponse({ description: 'Invalid email or password', type: ErrorEnvelopeDto })
  @ApiForbiddenResponse({
    description: 'Not a member of the organization (or of any)',
    type: ErrorEnvelopeDto,
  })
  @ApiTooManyRequestsResponse({
    description: 'Too many failed logins from this address, of this account or of any; see Retry-After',
    type: ErrorEnvelopeDto,
  })
  login(
    @Body() body: LoginDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AccessToken> {
    return this.throttle.attempt(request.ip ?? '', body.email, response, () =>
      this.rpc.request(AuthContracts.login, {
        email: body.email,
        password: body.password,
        ...(body.organizationId ? { organizationId: body.organizationId } : {}),
      }),
    );
  }
}
