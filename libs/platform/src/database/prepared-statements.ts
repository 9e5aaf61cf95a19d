import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Client, type QueryConfig } from 'pg';

/** The name each marked statement's text is prepared under, the same in every process that marks it. */
const preparedNames = new Map<string, string>();
/**
 * More marked texts than the services have statements means a text built per call was marked: past
 * this many, texts go unmarked (and it is logged once), so that no connection fills with statements.
 */
export const MAX_PREPARED_TEXTS = 500;
const logger = new Logger('PreparedStatements');
let warnedOfExcess = false;

/**
 * Marks a statement of the hot path as one PostgreSQL parses and plans once per connection instead
 * of on every call (decision 194): answers the text unchanged, to pass to `query` as before.
 * Only constant texts may be marked (a module's constant, or a repository's text built once in its
 * constructor), so that a connection holds a bounded set of prepared statements.
 */
export function preparedStatement(text: string): string {
  if (preparedNames.has(text)) return text;
  if (preparedNames.size >= MAX_PREPARED_TEXTS) {
    if (!warnedOfExcess) {
      warnedOfExcess = true;
      logger.warn(
        `More than ${MAX_PREPARED_TEXTS} texts were marked prepared (one built per call?): the rest go unnamed`,
      );
    }
    return text;
  }
  preparedNames.set(text, `gw_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`);
  return text;
}

/**
 * The pool's client (`extra.Client` of the DataSource): a query whose text is marked goes as the
 * named prepared statement of that text, which pg parses on the connection's first use of it and
 * then only binds and executes. Everything else goes as pg sends it.
 */
export class PreparingClient extends Client {
  // pg's overloads of query do not survive an override; TypeORM calls it as (text, values).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [text, values, callback] = args as unknown[];
    if (typeof text === 'string' && Array.isArray(values)) {
      const name = preparedNames.get(text);
      if (name !== undefined)
        return super.query({ name, text, values } satisfies QueryConfig, callback as never);
    }
    return super.query(...(args as [never, never, never]));
  }
}
