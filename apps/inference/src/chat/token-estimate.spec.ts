import { estimatedTokens } from './token-estimate';

describe('estimatedTokens', () => {
  it.each<[string, string, number]>([
    ['nothing', '', 0],
    ['a quarter of the UTF-8 bytes of prose, rounded up', 'The quick brown fox jumps', 7],
    ['at least one token per word', 'a b c d e f', 6],
    ['whitespace of any kind between words', 'a\tb\nc  d', 4],
    ['bytes, not characters, for other scripts', 'привет', 3],
    ['one long word by its bytes', 'x'.repeat(40), 10],
  ])('counts %s', (_label, text, expected) => {
    expect(estimatedTokens(text)).toBe(expected);
  });
});
