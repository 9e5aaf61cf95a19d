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
  // No more openings than the limit cannot nest deeper: counted natively, this spares the byte
  // loop for nearly every body, the 33 MB of a base64 audio file included.
  if (countsAtMost(body, OPEN_OBJECT, OPEN_ARRAY, maxDepth)) return false;
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

function countsAtMost(body: Uint8Array, first: number, second: number, limit: number): boolean {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let count = 0;
  for (const byte of [first, second]) {
    for (let at = bytes.indexOf(byte); at !== -1; at = bytes.indexOf(byte, at + 1)) {
      if (++count > limit) return false;
    }
  }
  return true;
}
