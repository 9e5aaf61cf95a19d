/**
 * A realistic count of the tokens of a text when no provider reported one: about four UTF-8 bytes
 * per token, as the common tokenizers average on prose, but never fewer tokens than
 * whitespace-separated words, since a tokenizer does not join two words into one token. Unlike the
 * reservation's upper bound (one token per byte) it can be somewhat above or below the real count;
 * it is what is charged, and compared with context limits, when nothing better is known.
 */
export function estimatedTokens(text: string): number {
  return Math.max(Math.ceil(Buffer.byteLength(text, 'utf8') / 4), text.match(/\S+/g)?.length ?? 0);
}
