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

/** The widest textWidth: the three UTF-8 bytes of a CJK character. */
const WIDEST_TEXT = 3;

/**
 * What kind of script texts are mostly in, as their UTF-8 bytes per UTF-16 unit, rounded: 1 for
 * Latin scripts, 2 for Cyrillic, Greek, Arabic or Hebrew, 3 for CJK. estimatedTokens counts bytes,
 * and tokenizers spend a different number of bytes per token on each, so what the gateway learns
 * of a provider's counts holds for one kind of text.
 */
export function textWidth(texts: readonly string[]): number {
  let bytes = 0;
  let units = 0;
  for (const text of texts) {
    bytes += Buffer.byteLength(text, 'utf8');
    units += text.length;
  }
  if (units === 0) return 1;
  return Math.min(WIDEST_TEXT, Math.max(1, Math.round(bytes / units)));
}

/**
 * estimatedTokens of a text that arrives in pieces, kept up to date piece by piece: a word split
 * across two pieces counts once, so the count always equals estimatedTokens of the whole so far.
 */
export class TokenTally {
  private bytes = 0;
  private words = 0;
  private endsInWord = false;

  add(piece: string): void {
    if (piece === '') return;
    this.bytes += Buffer.byteLength(piece, 'utf8');
    this.words += piece.match(/\S+/g)?.length ?? 0;
    if (this.endsInWord && /^\S/.test(piece)) this.words--;
    this.endsInWord = /\S$/.test(piece);
  }

  get tokens(): number {
    return Math.max(Math.ceil(this.bytes / 4), this.words);
  }
}
