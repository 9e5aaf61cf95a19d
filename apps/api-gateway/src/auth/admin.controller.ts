import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AuthContracts, AuthUser, CreatedApiKey, KeyLimits, Membership, Organization } from '@gw/contracts';
import {
  AdminCreateApiKeyDto,
  ApiKeyLimitsDto,
  CreatedApiKeyDto,
  CreateOrganizationDto,
  CreateUserDto,
  ErrorEnvelopeDto,
  MembershipDto,
  MembershipParamsDto,
  OrganizationApiKeyParamsDto,
  OrganizationDto,
  OrganizationParamsDto,
  SetApiKeyLimitsDto,
  SetMembershipDto,
  UserDto,
} from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { AdminOnly } from '../security/admin-token.guard';

/** The operator API of DESIGN.md §4, authorized by ADMIN_TOKEN. */
@ApiTags('admin')
@AdminOnly()
@ApiBadRequestResponse({ description: 'Invalid input', type: ErrorEnvelopeDto })
@Controller('admin')
export class AdminController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('users')
  @ApiOperation({ summary: 'Create a user' })
  @ApiCreatedResponse({ type: UserDto })
  @ApiConflictResponse({
    description: 'The email is already taken (case-insensitive)',
    type: ErrorEnvelopeDto,
  })
  createUser(@Body() body: CreateUserDto): Promise<AuthUser> {
    return this.rpc.request(AuthContracts.adminCreateUser, {
      email: body.email,
      password: body.password,
      name: body.name,
    });
  }

  @Post('organizations')
  @ApiOperation({ summary: 'Create an organization' })
  @ApiCreatedResponse({ type: OrganizationDto })
  createOrganization(@Body() body: CreateOrganizationDto): Promise<Organization> {
    return this.rpc.request(AuthContracts.adminCreateOrganization, { name: body.name });
  }

  @Put('organizations/:orgId/members/:userId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add a user to an organization or change their role' })
  @ApiOkResponse({ type: MembershipDto })
  @ApiNotFoundResponse({ description: 'Unknown organization or user', type: ErrorEnvelopeDto })
  setMembership(@Param() params: MembershipParamsDto, @Body() body: SetMembershipDto): Promise<Membership> {
    return this.rpc.request(AuthContracts.adminSetMembership, {
      organizationId: params.orgId,
      userId: params.userId,
      role: body.role,
    });
  }

  @Post('organizations/:orgId/api-keys')
  @ApiOperation({ summary: 'Create an API key for an organization; the key is shown only in this answer' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiNotFoundResponse({ description: 'Unknown organization or user', type: ErrorEnvelopeDto })
  createApiKey(
    @Param() params: OrganizationParamsDto,
    @Body() body: AdminCreateApiKeyDto,
  ): Promise<CreatedApiKey> {
    return this.rpc.request(AuthContracts.adminCreateApiKey, {
      organizationId: params.orgId,
      name: body.name,
      ...(body.userId ? { userId: body.userId } : {}),
      ...(body.limits ? { limits: body.limits } : {}),
    });
  }

  @Put('organizations/:orgId/api-keys/:id/limits')
  @HttpCode(200)
  @ApiOperation({
    summary: "Replace an API key's spending limits",
    description:
      'One limit per period (day, week, month, total); an empty list removes them. A request whose worst-case cost does not fit under every limit is refused with 402 spending_limit_exceeded.',
  })
  @ApiOkResponse({ type: ApiKeyLimitsDto })
  @ApiNotFoundResponse({
    description: "Unknown organization or key, or another organization's key",
    type: ErrorEnvelopeDto,
  })
  setApiKeyLimits(
    @Param() params: OrganizationApiKeyParamsDto,
    @Body() body: SetApiKeyLimitsDto,
  ): Promise<KeyLimits> {
    return this.rpc.request(AuthContracts.adminSetApiKeyLimits, {
      organizationId: params.orgId,
      id: params.id,
      limits: body.limits,
    });
  }
}
