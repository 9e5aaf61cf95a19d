const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether a JSON text nests objects and arrays deeper than `maxDepth`. Checked on the raw bytes
 * before parsing, because the recursive transform and validation of a parsed body overflow the
 * stack on a few kilobytes of brackets; brackets inside strings do not count.
 */
export function exceedsJsonNesting(body: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}
