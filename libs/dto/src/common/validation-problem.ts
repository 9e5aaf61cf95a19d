import type { ValidationError } from 'class-validator';

/** What the error envelope reports of a failed validation: the dotted path of the fault and why. */
export interface ValidationProblem {
  param: string;
  message: string;
}

/**
 * The order in which a field's failed constraints are worth reporting. A value of the wrong type
 * also fails every range, length and format rule of its field, so those come last: `"5"` for
 * max_tokens is "must be an integer", not "must not be less than 1". Custom type checks of this
 * library (a value that is not even the right kind of thing) rank with the built-in ones.
 */
const CONSTRAINT_RANKS: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['whitelistValidation']),
  new Set(['isDefined', 'isPresent']),
  new Set(['isNotEmpty']),
  new Set([
    'isString',
    'isInt',
    'isNumber',
    'isBoolean',
    'isArray',
    'isObject',
    'isObjectItems',
    'isEnum',
    'isIn',
    'isUuid',
    'isChatContent',
    'isToolChoice',
    'isPriceLimit',
    'isStopSequences',
    'isLogitBias',
    'isMetadata',
    'isResponsesInput',
    'isResponsesToolChoice',
    'isMessagesContent',
    'isMessagesSystem',
    'isEmbeddingInput',
    'isPriceValue',
    'isParameterDescriptors',
  ]),
  // class-validator's own check that a nested value is an object or array; the field's type check says it better.
  new Set(['nestedValidation']),
];

function rank(constraint: string): number {
  const index = CONSTRAINT_RANKS.findIndex((names) => names.has(constraint));
  return index === -1 ? CONSTRAINT_RANKS.length : index;
}

/**
 * The constraint to report of the several a field failed. class-validator lists a field's
 * constraints bottom decorator first, so among equals the reversed list prefers the one written first.
 */
const NOT_EMPTY_RANK = 2;
const TYPE_RANK = 3;

function mostBasic(constraints: Record<string, string>): [string, string] {
  const written = Object.entries(constraints).reverse();
  return written.reduce((best, entry) => (rank(entry[0]) < rank(best[0]) ? entry : best));
}

function childPath(prefix: string, property: string): string {
  if (!prefix) return property ?? '';
  return /^\d+$/.test(property) ? `${prefix}[${property}]` : `${prefix}.${property}`;
}

/** One step into a value: `[3]` or `.name`, matched where the last one ended. */
const PATH_STEP = /\[\d+\]|\.[A-Za-z_$][\w$]*/y;

/**
 * A message begins with what it is about: the field itself (`max_price must be an object`) or a
 * part of its value that a custom validator checked (`content[0].type must be one of ...`). That
 * subject, written from the root, is the param, and the message names it the same way. The
 * property name is compared as text, never compiled into a pattern: it comes from the client.
 */
function locate(path: string, property: string | undefined, message: string): ValidationProblem {
  if (!property || !message.startsWith(property)) return { param: path, message };
  let end = property.length;
  PATH_STEP.lastIndex = end;
  while (PATH_STEP.exec(message)) end = PATH_STEP.lastIndex;
  if (end < message.length && !/[\s:]/.test(message[end])) return { param: path, message };
  const param = path + message.slice(property.length, end);
  return { param, message: param + message.slice(end) };
}

function firstIn(error: ValidationError, prefix: string): ValidationProblem | null {
  const path = childPath(prefix, error.property);
  if (error.constraints && Object.keys(error.constraints).length > 0) {
    const [constraint, message] = mostBasic(error.constraints);
    // class-validator's own words for a non-object where a nested object belongs name neither the path nor the fault.
    if (constraint === 'nestedValidation') return { param: path, message: `${path} must be an object` };
    // An absent field fails its emptiness or type check too; "email must be a string" would hide that it is missing.
    const rankOfConstraint = rank(constraint);
    if (
      error.value === undefined &&
      (rankOfConstraint === NOT_EMPTY_RANK || rankOfConstraint === TYPE_RANK)
    ) {
      return { param: path, message: `${path} is required` };
    }
    return locate(path, error.property, message);
  }
  for (const child of error.children ?? []) {
    const problem = firstIn(child, path);
    if (problem) return problem;
  }
  return null;
}

/** The first field that failed, in the order the errors came (unknown fields first, then declaration order), and its most basic fault. */
export function firstValidationProblem(errors: ValidationError[]): ValidationProblem | null {
  for (const error of errors) {
    const problem = firstIn(error, '');
    if (problem) return problem;
  }
  return null;
}
