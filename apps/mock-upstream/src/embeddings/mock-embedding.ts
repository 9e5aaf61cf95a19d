import { createHash } from 'node:crypto';

/** The native size of each embedding model Mock Alpha serves; only the ones marked take `dimensions`. */
export const MOCK_EMBEDDING_MODELS: Record<string, { dimensions: number; takesDimensions: boolean }> = {
  'alpha-embed-small': { dimensions: 1536, takesDimensions: false },
  'alpha-embed-large': { dimensions: 3072, takesDimensions: true },
};

/**
 * A unit vector of `dimensions` numbers determined by the text alone: SHA-256 blocks of the text
 * and a counter, read as values in [-1, 1], normalised. Every number is a float32 value, so a
 * base64 float32 encoding of it decodes to exactly the same numbers.
 */
export function mockEmbedding(text: string, dimensions: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let i = 0; i + 2 <= digest.length && raw.length < dimensions; i += 2)
      raw.push(digest.readUInt16LE(i) / 32767.5 - 1);
  }
  const norm = Math.sqrt(raw.reduce((sum, v) => sum + v * v, 0)) || 1;
  return raw.map((v) => Math.fround(v / norm));
}

/** About four bytes per token, at least one per input: what the mock reports as usage. */
export function mockEmbeddingTokens(text: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
}

/** `[[fail:NNN]]` in any input makes the call answer that status, as in chat. */
export function injectedFailure(inputs: string[]): number | null {
  for (const text of inputs) {
    const match = /\[\[fail:(\d{3})\]\]/.exec(text);
    if (match) return Number(match[1]);
  }
  return null;
}
