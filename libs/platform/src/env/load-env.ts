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
 * What the shipped templates put where a secret belongs (`PLACEHOLDER-…` in k8s/base/secret.yaml,
 * `…change-me` and `…replace-me` in examples): a deployment that still carries one was not configured.
 */
const PLACEHOLDER = /placeholder|change-me|replace-me/i;

/**
 * Reads an app's environment once, at start, into a typed, validated object. Each app declares its
 * schema as a class with class-validator decorators and defaults as property initialisers. A
 * variable of the schema that still holds a template's placeholder stops the start, named.
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
  const placeholders = Object.entries(defined)
    .filter(([name, value]) => name in env && PLACEHOLDER.test(value as string))
    .map(([name]) => `${name}: holds a template's placeholder, not a value of this deployment`);
  const problems = [...errors.flatMap(describe), ...placeholders];
  if (problems.length > 0) throw new EnvValidationError(problems);
  return env;
}

function describe(error: ValidationError): string[] {
  const constraints = Object.values(error.constraints ?? {});
  return constraints.map((message) => `${error.property}: ${message}`);
}
