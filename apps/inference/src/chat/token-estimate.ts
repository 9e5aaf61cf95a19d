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
