import { Decimal } from 'decimal.js';
import { type GenerationFinalStatus } from '@gw/contracts';
import { chargeFor, listStatusOf, recordedFinishReason } from './settlement-rules';

describe('chargeFor', () => {
  const d = (value: string) => new Decimal(value);

  it('charges the cost when no reservation exists, up to what the balance has free', () => {
    expect(chargeFor(d('3.5'), null, d('10')).toFixed()).toBe('3.5');
    expect(chargeFor(d('3.5'), null, d('1')).toFixed()).toBe('1');
    expect(chargeFor(d('3.5'), null, d('-2')).toFixed()).toBe('0');
  });

  it('never charges more than an active hold, whatever the balance', () => {
    expect(chargeFor(d('3.5'), { amount: d('2'), active: true }, d('0')).toFixed()).toBe('2');
    expect(chargeFor(d('1.25'), { amount: d('2'), active: true }, d('0')).toFixed()).toBe('1.25');
  });

  it('caps a late charge after the hold was released at the former hold and the free balance', () => {
    expect(chargeFor(d('4'), { amount: d('1'), active: false }, d('5')).toFixed()).toBe('1');
    expect(chargeFor(d('4'), { amount: d('3'), active: false }, d('0.5')).toFixed()).toBe('0.5');
    expect(chargeFor(d('4'), { amount: d('3'), active: false }, d('-1')).toFixed()).toBe('0');
  });
});

describe('recordedFinishReason', () => {
  it.each<[GenerationFinalStatus, string | null | undefined, string]>([
    ['completed', 'length', 'length'],
    ['completed', null, 'stop'],
    ['failed', null, 'error'],
    ['failed', undefined, 'error'],
    ['failed', '', 'error'],
    // A moderation block before output is failed with the provider's reason (decisions.md 15).
    ['failed', 'content_filter', 'content_filter'],
    ['cancelled', null, 'cancelled'],
    // The provider finished before the client left.
    ['cancelled', 'stop', 'stop'],
  ])('records a %s generation reported with %p as %s', (status, reported, expected) => {
    expect(recordedFinishReason(status, reported)).toBe(expected);
  });
});

describe('listStatusOf', () => {
  it.each<[GenerationFinalStatus, string]>([
    ['completed', 'completed'],
    ['failed', 'failed'],
    ['cancelled', 'failed'],
  ])('lists %s as %s', (status, listed) => {
    expect(listStatusOf(status)).toBe(listed);
  });
});
