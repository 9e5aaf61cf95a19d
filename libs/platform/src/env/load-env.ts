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
 * Secret values this repository itself publishes, which any reader knows: compose's former local
 * fallbacks (`gateway-local`, `gateway-local-secret`) and the templates' placeholders.
 */
const PUBLISHED_SECRET = /^gateway-local|placeholder|change-me|replace-me/i;

/** Variables that hold a secret whole (passwords inside URLs are found by parsing every URL). */
const SECRET_VARIABLES = [
  'JWT_SECRET',
  'ADMIN_TOKEN',
  'NATS_PASSWORD',
  'BLOB_URL_SECRET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
];

/** The fewest characters of a password in a URL and of an S3 secret key (like JWT_SECRET, ADMIN_TOKEN and NATS_PASSWORD). */
export const MIN_SECRET_LENGTH = 16;

export interface LoadEnvOptions {
  /**
   * A deployed app (a service or the gateway started on its own, in compose, Kubernetes or the
   * e2e stacks), whose secrets an operator set: a secret holding a value the repository publishes,
   * a password in a URL (DATABASE_URL, NATS_URL, ...) or an S3 secret key of the s3 store shorter than
   * MIN_SECRET_LENGTH stops the start. A URL without a password (trust or peer authentication) is
   * accepted. The embedded mode generates its own secrets and does not ask for this.
   */
  deployed?: boolean;
}

/**
 * Reads an app's environment once, at start, into a typed, validated object. Each app declares its
 * schema as a class with class-validator decorators and defaults as property initialisers. A
 * variable of the schema that still holds a template's placeholder stops the start, named; a
 * deployed app's weak or published secrets too (`options.deployed`). Messages never quote a value.
 */
export function loadEnv<T extends object>(
  schema: new () => T,
  source: Record<string, string | undefined>,
  options: LoadEnvOptions = {},
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
  const read = Object.entries(defined).filter(([name]) => name in env) as [string, string][];
  const weak = options.deployed ? weakSecrets(read, env as Record<string, unknown>) : [];
  const problems = [...errors.flatMap(describe), ...placeholders, ...weak];
  if (problems.length > 0) throw new EnvValidationError(problems);
  return env;
}

function describe(error: ValidationError): string[] {
  const constraints = Object.values(error.constraints ?? {});
  return constraints.map((message) => `${error.property}: ${message}`);
}

/** A deployed app's secrets that a reader of the repository knows or that are too short to hold. */
function weakSecrets(read: [string, string][], env: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of read) {
    // A placeholder is named as one above.
    if (PLACEHOLDER.test(value)) continue;
    if (SECRET_VARIABLES.includes(name) && PUBLISHED_SECRET.test(value))
      problems.push(
        `${name}: holds a demo or local value this repository publishes, not a secret of this deployment`,
      );
    const password = urlPassword(value);
    if (password === undefined) continue;
    if (PUBLISHED_SECRET.test(password))
      problems.push(`${name}: its password is a demo or local value this repository publishes`);
    else if (password.length < MIN_SECRET_LENGTH)
      problems.push(`${name}: its password must be ${MIN_SECRET_LENGTH} or more characters (or absent)`);
  }
  const s3Key = read.find(([name]) => name === 'S3_SECRET_ACCESS_KEY')?.[1];
  if (env['BLOB_STORE'] === 's3' && s3Key !== undefined && s3Key.length < MIN_SECRET_LENGTH)
    problems.push(`S3_SECRET_ACCESS_KEY: must be ${MIN_SECRET_LENGTH} or more characters`);
  return problems;
}

/**
 * The password of a URL with credentials (`scheme://user:password@host`), decoded: `''` for
 * `user:@host`, undefined without one (`user@host`, or no credentials at all).
 */
function urlPassword(value: string): string | undefined {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(value)?.[1];
  if (userinfo === undefined || !userinfo.includes(':')) return undefined;
  const password = userinfo.slice(userinfo.indexOf(':') + 1);
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
