/**
 * Keys the request transformer cannot copy: it takes an own `constructor` for the class to build
 * (and fails), and turns `__proto__` into a prototype instead of a field.
 */
const RESERVED_KEYS = new Set(['constructor', '__proto__']);

/**
 * A high surrogate not followed by a low one, or a low one not preceded by a high one: JSON's
 * `\ud800` escapes allow them, but no UTF-8 text (PostgreSQL's, NATS payloads') can hold them.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface JsonHazard {
  /** Dotted path of the offending field, '' for the value itself. */
  path: string;
  message: string;
}

/**
 * The first part of a parsed body or query that no service could handle faithfully: a string with
 * a NUL character (PostgreSQL text cannot store it) or a lone UTF-16 surrogate (no UTF-8 text
 * can), or a reserved key name.
 */
export function findJsonHazard(value: unknown, path = ''): JsonHazard | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      return { path, message: `${path || 'The request body'} must not contain NUL characters` };
    if (LONE_SURROGATE.test(value))
      return {
        path,
        message: `${path || 'The request body'} must be valid Unicode text (it holds a lone UTF-16 surrogate)`,
      };
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findJsonHazard(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000'))
        return { path: itemPath, message: `Field names must not contain NUL characters` };
      if (LONE_SURROGATE.test(key))
        return { path: itemPath, message: `Field names must be valid Unicode text` };
      if (RESERVED_KEYS.has(key))
        return { path: itemPath, message: `${itemPath}: "${key}" is a reserved field name` };
      const found = findJsonHazard((value as Record<string, unknown>)[key], itemPath);
      if (found) return found;
    }
  }
  return null;
}
