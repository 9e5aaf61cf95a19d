import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AccessToken, AuthContracts } from '@gw/contracts';
import { AccessTokenDto, ErrorEnvelopeDto, LoginDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';

@ApiTags('auth')
@Controller('auth')
export class LoginController {
  constructor(private readonly rpc: RpcClient) {}

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
  login(@Body() body: LoginDto): Promise<AccessToken> {
    return this.rpc.request(AuthContracts.login, {
      email: body.email,
      password: body.password,
      ...(body.organizationId ? { organizationId: body.organizationId } : {}),
    });
  }
}
