// class-transformer reads the schema's decorator metadata through the Reflect API.
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** A configuration problem found at start: printed as its message alone, then the process exits. */
export class StartupError extends Error {}

export class EnvValidationError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid environment: ${problems.join('; ')} (set the variables named and start again)`);
    this.name = 'EnvValidationError';
  }
}

/**
 * Reads an app's environment once, at start, into a typed, validated object. Each app declares its
 * schema as a class with class-validator decorators and defaults as property initialisers.
 */
export function loadEnv<T extends object>(
  schema: new () => T,
  source: Record<string, string | undefined>,
): T {
  const defined = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const env = plainToInstance(schema, defined, {
    enableImplicitConversion: true,
    excludeExtraneousValues: false,
  });
  const errors = validateSync(env, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) throw new EnvValidationError(errors.flatMap(describe));
  return env;
}

function describe(error: ValidationError): string[] {
  const constraints = Object.values(error.constraints ?? {});
  return constraints.map((message) => `${error.property}: ${message}`);
}
