import { consoleJwtTimesValid, JWT_CLOCK_SKEW_SECONDS } from './jwt.strategy';

describe('consoleJwtTimesValid', () => {
  const ttl = 3600;
  const now = 1_800_000_000;

  it.each([
    ['a token as auth issues it', true, { iat: now, exp: now + ttl }],
    ['one issued a while ago', true, { iat: now - 1000, exp: now - 1000 + ttl }],
    [
      'one issued by a clock a little ahead',
      true,
      { iat: now + JWT_CLOCK_SKEW_SECONDS, exp: now + 60 + ttl },
    ],
    ['one issued in the future', false, { iat: now + JWT_CLOCK_SKEW_SECONDS + 1, exp: now + 61 + ttl }],
    ['one issued far in the future', false, { iat: now + 86_400, exp: now + 86_400 + ttl }],
    ['one living the clock skew longer', true, { iat: now, exp: now + ttl + JWT_CLOCK_SKEW_SECONDS }],
    ['one living longer than auth issues', false, { iat: now, exp: now + ttl + JWT_CLOCK_SKEW_SECONDS + 1 }],
    ['one living a hundred years', false, { iat: now, exp: now + 100 * 365 * 86_400 }],
    ['one without exp', false, { iat: now }],
    ['one without iat', false, { exp: now + ttl }],
    ['one with times that are not numbers', false, { iat: String(now), exp: String(now + ttl) }],
  ])('%s → %s', (_name, expected, payload) => {
    expect(consoleJwtTimesValid(payload, ttl, now)).toBe(expected);
  });

  it('follows the lifetime auth is configured with', () => {
    expect(consoleJwtTimesValid({ iat: now, exp: now + 7200 }, 3600, now)).toBe(false);
    expect(consoleJwtTimesValid({ iat: now, exp: now + 7200 }, 7200, now)).toBe(true);
  });
});
