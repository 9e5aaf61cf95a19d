import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AuthContracts, BalanceResponse, BillingContracts } from '@gw/contracts';
import { AddCreditsDto, BalanceDto, ErrorEnvelopeDto, OrganizationCreditsParamsDto } from '@gw/dto';
import { RpcClient } from '@gw/platform';
import { AdminOnly } from '../security/admin-token.guard';

@ApiTags('admin')
@Controller('admin/organizations/:orgId/credits')
export class AdminCreditsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(200)
  @AdminOnly()
  @ApiOperation({
    summary: "Add credits to an organization's balance",
    description: 'Answers the new balance.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Up to 255 characters; the same key credits once and answers the same balance again',
    example: 'topup-2026-11-22-001',
  })
  @ApiOkResponse({ type: BalanceDto })
  @ApiBadRequestResponse({ description: 'Invalid amount or organization id', type: ErrorEnvelopeDto })
  @ApiNotFoundResponse({ description: 'No organization has this id', type: ErrorEnvelopeDto })
  @ApiConflictResponse({
    description: 'The Idempotency-Key was used for a different amount',
    type: ErrorEnvelopeDto,
  })
  async addCredits(
    @Param() params: OrganizationCreditsParamsDto,
    @Body() body: AddCreditsDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<BalanceResponse> {
    // Billing opens an account for any id; only auth knows which organizations exist.
    await this.rpc.request(AuthContracts.adminGetOrganization, { organizationId: params.orgId });
    return this.rpc.request(BillingContracts.addCredits, {
      organizationId: params.orgId,
      amount: body.amount,
      reason: body.reason ?? null,
      idempotencyKey: idempotencyKey ?? null,
    });
  }
}
