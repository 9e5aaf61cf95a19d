import { estimatedTokens, textWidth, TokenTally } from './token-estimate';

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

describe('TokenTally', () => {
  it.each<[string, string[]]>([
    ['words streamed one per piece', ['one', ' two', ' three', ' four', ' five', ' six']],
    ['a word split across pieces', ['a b', 'c d', ' e', 'f ', 'g']],
    ['pieces of whitespace and empty pieces', ['a', ' ', '', '\n', 'b', '  c']],
    ['long words and other scripts', ['x'.repeat(13), 'при', 'вет ', 'мир']],
  ])('counts %s as estimatedTokens counts the whole', (_label, pieces) => {
    const tally = new TokenTally();
    pieces.forEach((piece, i) => {
      tally.add(piece);
      expect(tally.tokens).toBe(estimatedTokens(pieces.slice(0, i + 1).join('')));
    });
  });
});

describe('textWidth', () => {
  it.each<[string, string[], number]>([
    ['nothing', [], 1],
    ['English prose', ['Could you tell me what the weather is like?'], 1],
    ['Russian prose, its spaces and punctuation included', ['Подскажи, пожалуйста, какая погода?'], 2],
    ['Chinese', ['今天天气怎么样'], 3],
    [
      'texts together, the longest weighing most',
      ['Answer in English.', 'Подскажи, пожалуйста, какая погода в Лиссабоне?'],
      2,
    ],
  ])('tells %s', (_label, texts, expected) => {
    expect(textWidth(texts)).toBe(expected);
  });
});
