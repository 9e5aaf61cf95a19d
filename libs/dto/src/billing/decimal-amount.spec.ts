import { isPositiveCreditAmount } from './decimal-amount';

describe('isPositiveCreditAmount', () => {
  it.each(['100.00', '1', '0.00000001', '999999999999.99999999', '0.5', '007'])('accepts %s', (value) => {
    expect(isPositiveCreditAmount(value)).toBe(true);
  });

  it.each([
    ['zero', '0'],
    ['zero with decimals', '0.00000000'],
    ['negative', '-1.00'],
    ['plus sign', '+1'],
    ['nine decimals', '0.000000001'],
    ['thirteen integer digits', '1000000000000'],
    ['exponent', '1e3'],
    ['trailing dot', '1.'],
    ['leading dot', '.5'],
    ['comma', '1,5'],
    ['spaces', ' 1'],
    ['empty', ''],
  ])('refuses %s', (_label, value) => {
    expect(isPositiveCreditAmount(value)).toBe(false);
  });

  it('refuses non-strings, so a JSON number never sneaks through as money', () => {
    expect(isPositiveCreditAmount(100)).toBe(false);
    expect(isPositiveCreditAmount(null)).toBe(false);
  });
});
