import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Validation against the published schemas, offline: the Kubernetes API's (kubernetes-schemas.mjs)
// and the Compose Specification's.

/**
 * Every problem the Kubernetes schemas find in the objects: a field of the wrong type or format, a
 * missing required field, a field the schema does not have, or an apiVersion and kind with no schema
 * (a kind this check does not know fails; it is not skipped).
 */
export function kubernetesSchemaProblems(objects: object[]): string[] {
  const output = execFileSync(process.execPath, [join(__dirname, 'kubernetes-schemas.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(output) as string[];
}

/**
 * The Compose Specification's JSON schema (compose-spec/compose-spec, schema/compose-spec.json,
 * Apache-2.0) as the `dclint` package ships it and keeps it current; its files are not exported, so
 * it is read from the package's directory.
 */
export const COMPOSE_SCHEMA_FILE = join(
  dirname(require.resolve('dclint/package.json')),
  'schemas/compose.schema.json',
);

let composeValidator: ValidateFunction | undefined;

function validateCompose(): ValidateFunction {
  if (composeValidator) return composeValidator;
  // The schema names its draft as `https://json-schema.org/draft-07/schema`, a spelling Ajv does not
  // know: it is draft-07, Ajv's default. `strict: false` because strict mode lints the schema's own
  // style (union types, `additionalProperties` beside `oneOf`), which compose's validator accepts.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(COMPOSE_SCHEMA_FILE, 'utf8')) as Record<
    string,
    unknown
  >;
  composeValidator = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return composeValidator;
}

const describeError = (e: ErrorObject): string => {
  const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
  return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
};

/** Every problem the Compose Specification's schema finds in a compose file (parsed with merge keys resolved). */
export function composeSchemaProblems(compose: unknown): string[] {
  const validate = validateCompose();
  if (validate(compose)) return [];
  return [...new Set((validate.errors ?? []).map(describeError))];
}
