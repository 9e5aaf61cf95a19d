import { looksLikeJwt } from './bearer-credential';

describe('looksLikeJwt', () => {
  it.each([
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', true],
    ['a.b.c', true],
    ['sk-gw-3kTMd9vQ1pZ8xWc2LrN7bY5hJ0sFgA4eU6iKoP9qR2tZ8', false],
    ['a.b', false],
    ['a.b.c.d', false],
    ['a..c', false],
    ['a.b+c.d', false],
  ])('%s → %s', (token, expected) => {
    expect(looksLikeJwt(token)).toBe(expected);
  });
});
