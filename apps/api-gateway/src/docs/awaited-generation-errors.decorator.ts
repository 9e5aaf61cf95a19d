import { applyDecorators } from '@nestjs/common';
import { ApiConflictResponse } from '@nestjs/swagger';
import { ErrorEnvelopeDto } from '@gw/dto';
import { ApiPaidGenerationErrors } from './paid-generation-errors.decorator';

/**
 * The error answers of a route that waits for its media generation (images, speech): a paid
 * generation's, and 409 for one cancelled (by its owner) while the request waited.
 */
export function ApiAwaitedGenerationErrors(badRequest: string) {
  return applyDecorators(
    ApiPaidGenerationErrors(badRequest),
    ApiConflictResponse({
      description: 'The generation was cancelled before it finished',
      type: ErrorEnvelopeDto,
    }),
  );
}
