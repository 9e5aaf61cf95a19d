import { exceedsJsonNesting } from './json-nesting';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('exceedsJsonNesting', () => {
  it.each<[string, string, number, boolean]>([
    ['a flat object', '{"a":1,"b":[1,2]}', 2, false],
    ['exactly the limit', '{"a":{"b":[1]}}', 3, false],
    ['one level over the limit', '{"a":{"b":[[1]]}}', 3, true],
    ['brackets inside strings', '{"a":"[[[[[[{{{{"}', 1, false],
    ['an escaped quote that does not end the string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['sibling containers do not add up', '[[1],[2],[3],{"a":[4]}]', 3, false],
    ['thousands of brackets', '['.repeat(5000) + ']'.repeat(5000), 100, true],
  ])('%s', (_name, text, maxDepth, expected) => {
    expect(exceedsJsonNesting(bytes(text), maxDepth)).toBe(expected);
  });
});
