import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from '@gw/contracts';

/**
 * The one validation pipe, at the HTTP edge and at every NATS handler: unknown fields are refused,
 * and the first failure becomes an `invalid_request` naming the offending parameter.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => validationErrorToDomainError(errors),
  });
}

export function validationErrorToDomainError(errors: ValidationError[]): DomainError {
  const first = firstLeaf(errors[0], '');
  if (!first) return new DomainError('invalid_request', 'Invalid request');
  const message = Object.values(first.error.constraints ?? {})[0] ?? `Invalid value for ${first.path}`;
  return new DomainError('invalid_request', message, first.path || null);
}

function firstLeaf(error: ValidationError | undefined, prefix: string): { error: ValidationError; path: string } | null {
  if (!error) return null;
  const path = prefix ? (/^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`) : error.property;
  if (error.constraints && Object.keys(error.constraints).length > 0) return { error, path };
  for (const child of error.children ?? []) {
    const leaf = firstLeaf(child, path);
    if (leaf) return leaf;
  }
  return null;
}
