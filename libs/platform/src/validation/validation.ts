import { type ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import { firstValidationProblem } from '@gw/dto';
import { memoizeValidationMetadata } from './validation-metadata-cache';

/**
 * The one validation pipe, at the HTTP edge and at every NATS handler: unknown fields are refused,
 * and the first failure becomes an `invalid_request` naming the offending parameter. Durable events
 * strip unknown fields instead (`unknownFields: 'strip'`): a stored money event written by a newer
 * producer during a rolling upgrade must still be settled, not dropped for a field it added.
 */
export function createValidationPipe(unknownFields: 'refuse' | 'strip' = 'refuse'): ValidationPipe {
  memoizeValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: unknownFields === 'refuse',
    transform: true,
    // The failing values stay on the errors: an absent field is told apart from a wrong one by them.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => validationErrorToDomainError(errors),
  });
}

/** The first failing field and its most basic fault (see `firstValidationProblem`), as a 400 naming its dotted path. */
export function validationErrorToDomainError(errors: ValidationError[]): DomainError {
  const problem = firstValidationProblem(errors);
  if (!problem) return new DomainError('invalid_request', 'Invalid request');
  return new DomainError('invalid_request', problem.message, problem.param || null);
}
