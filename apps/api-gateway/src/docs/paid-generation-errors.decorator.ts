import { applyDecorators } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiGatewayTimeoutResponse,
  ApiPaymentRequiredResponse,
  ApiServiceUnavailableResponse,
} from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '@gw/dto';

/** The error answers every paid, provider-backed route shares (DESIGN.md §5.1), documented once. */
export function ApiPaidGenerationErrors(badRequest: string) {
  return applyDecorators(
    ApiBadRequestResponse({ description: badRequest, type: ErrorEnvelopeDto }),
    ApiPaymentRequiredResponse({
      description: 'Balance or spending limit does not cover the request',
      type: ErrorEnvelopeDto,
    }),
    ApiBadGatewayResponse({ description: 'Every provider failed', type: ErrorEnvelopeDto }),
    ApiServiceUnavailableResponse({
      description: 'No provider or service available',
      type: ErrorEnvelopeDto,
    }),
    ApiGatewayTimeoutResponse({ description: 'The provider did not answer in time', type: ErrorEnvelopeDto }),
  );
}
