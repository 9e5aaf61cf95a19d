import { type ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { DomainError } from '@gw/contracts';
import { firstValidationProblem } from '@gw/dto';
import { memoizeValidationMetadata } from './validation-metadata-cache';
import { ValidityCheck } from './validity-check';

const validityCheck = new ValidityCheck();

/**
 * Nest's pipe with a fast answer for the common case: an object that passes ValidityCheck skips
 * class-validator, whose executor builds an error object for every property of every nested
 * object even when nothing is wrong. An object that does not pass gets class-validator's own
 * errors, so every refusal reads as before.
 */
class CheckedValidationPipe extends ValidationPipe {
  protected override validate(object: object, options?: ValidatorOptions) {
    if (validityCheck.passes(object, options ?? {})) return [];
    return super.validate(object, options);
  }
}

/**
 * The one validation pipe, at the HTTP edge and at every NATS handler: unknown fields are refused,
 * and the first failure becomes an `invalid_request` naming the offending parameter. Durable events
 * strip unknown fields instead (`unknownFields: 'strip'`): a stored money event written by a newer
 * producer during a rolling upgrade must still be settled, not dropped for a field it added.
 */
export function createValidationPipe(unknownFields: 'refuse' | 'strip' = 'refuse'): ValidationPipe {
  memoizeValidationMetadata();
  return new CheckedValidationPipe({
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
