import { DomainError } from '@gw/contracts';
import { Decimal } from 'decimal.js';
import { formatMoney, parseCreditAmount, parseMoney } from './money';

describe('money', () => {
  it('formats every amount with exactly 8 decimals', () => {
    expect(formatMoney('100')).toBe('100.00000000');
    expect(formatMoney(new Decimal('0.1').plus('0.2'))).toBe('0.30000000');
    expect(formatMoney('12.345678901')).toBe('12.34567890');
  });

  it('keeps decimal arithmetic exact where floats are not', () => {
    expect(formatMoney(new Decimal('0.00000001').times(3))).toBe('0.00000003');
    expect(0.1 + 0.2).not.toBe(0.3);
  });

  it('rounds a cost half up and a cap up to 8 decimals', () => {
    expect(parseMoney('0.000000005', 'cost').toFixed()).toBe('0.00000001');
    expect(parseMoney('0.000000004', 'cost').toFixed()).toBe('0');
    expect(parseMoney('0.000000001', 'maxAmount', Decimal.ROUND_UP).toFixed()).toBe('0.00000001');
  });

  it('reads the exponent form decimal.js writes for tiny values', () => {
    expect(parseMoney(new Decimal('0.00000002').toString(), 'cost').toFixed()).toBe('0.00000002');
  });

  it.each(['-1', '-1e-8', '1.', 'abc', '', ' 1', 'Infinity', 'NaN'])(
    'refuses %p as money from another service',
    (value) => {
      expect(() => parseMoney(value, 'cost')).toThrow(DomainError);
    },
  );

  it('refuses an amount that numeric(20,8) cannot hold', () => {
    expect(() => parseMoney('1000000000000', 'cost')).toThrow('cost is too large');
  });

  it('accepts a credit as given and refuses zero, a sign or a ninth decimal with invalid_request on amount', () => {
    expect(parseCreditAmount('100.00').toFixed(2)).toBe('100.00');
    for (const bad of ['0', '-5', '1.000000001', 100]) {
      expect(() => parseCreditAmount(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_request', param: 'amount' }),
      );
    }
  });
});
