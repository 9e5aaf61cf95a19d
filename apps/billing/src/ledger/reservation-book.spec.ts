import { Decimal } from 'decimal.js';
import { spendingWindows } from '../limits/spending-windows';
import { type KeyLimit } from './ledger.repository';
import { ReservationBook, type ReservationBookState, type ReserveOperation } from './reservation-book';

const d = (value: string) => new Decimal(value);
const at = new Date('2026-11-25T10:00:00Z');
const org = '00000000-0000-4000-8000-000000000001';
const other = '00000000-0000-4000-8000-000000000002';
const key = '00000000-0000-4000-8000-0000000000aa';

function op(overrides: Partial<ReserveOperation> = {}): ReserveOperation {
  return {
    kind: 'reserve',
    generationId: `gen_${Math.random()}`,
    organizationId: org,
    apiKeyId: null,
    maxAmount: d('1'),
    minAmount: d('1'),
    context: null,
    createdAt: at,
    expiresAt: new Date(at.getTime() + 45_000),
    windows: spendingWindows(at),
    ...overrides,
  };
}

function book(overrides: Partial<ReservationBookState> = {}, limits: [string, KeyLimit[]][] = []) {
  return new ReservationBook({
    balances: new Map([[org, d('2.5')]]),
    held: new Map(),
    existing: new Map(),
    limits: new Map(limits),
    counters: [],
    ...overrides,
  });
}

describe('ReservationBook', () => {
  it('decides each reserve against what the ones before it in the batch hold', () => {
    const ledger = book();
    expect(ledger.reserve(op()).reservedAmount).toBe('1.00000000');
    expect(ledger.reserve(op({ minAmount: d('0') })).reservedAmount).toBe('1.00000000');
    expect(ledger.reserve(op({ minAmount: d('0.1') })).reservedAmount).toBe('0.50000000');
    expect(() => ledger.reserve(op({ minAmount: d('0') }))).toThrow(
      'Insufficient balance: the balance is 2.50000000 RUB and 2.50000000 RUB of it is held',
    );
    expect(ledger.reservations.map((r) => r.amount.toFixed())).toEqual(['1', '1', '0.5']);
  });

  it('answers a repeated generation with its first hold, and refuses one another organization took', () => {
    const ledger = book({
      balances: new Map([
        [org, d('5')],
        [other, d('5')],
      ]),
      existing: new Map([['gen_old', { organizationId: org, amount: d('0.7') }]]),
    });
    expect(ledger.reserve(op({ generationId: 'gen_old' })).reservedAmount).toBe('0.70000000');
    expect(ledger.reserve(op({ generationId: 'gen_new', maxAmount: d('2') })).reservedAmount).toBe(
      '2.00000000',
    );
    expect(ledger.reserve(op({ generationId: 'gen_new' })).reservedAmount).toBe('2.00000000');
    expect(() => ledger.reserve(op({ generationId: 'gen_new', organizationId: other }))).toThrow(
      'Generation gen_new already has a reservation',
    );
    expect(ledger.reservations.map((r) => r.generationId)).toEqual(['gen_new']);
  });

  it("caps by the key's tightest limit, counting the batch's own holds, and adds one row per counter", () => {
    const windows = spendingWindows(at);
    const ledger = book(
      {
        balances: new Map([[org, d('100')]]),
        counters: [
          {
            organizationId: org,
            apiKeyId: key,
            period: 'day',
            windowStart: windows[0].start,
            held: d('1'),
            spent: d('2'),
          },
        ],
      },
      [[`${org}/${key}`, [{ period: 'day', amount: d('5') }]]],
    );
    expect(ledger.reserve(op({ apiKeyId: key })).reservedAmount).toBe('1.00000000');
    expect(ledger.reserve(op({ apiKeyId: key, maxAmount: d('3'), minAmount: d('0') })).reservedAmount).toBe(
      '1.00000000',
    );
    expect(() => ledger.reserve(op({ apiKeyId: key, minAmount: d('0') }))).toThrow(
      'Spending limit exceeded: the day limit of this API key is 5.00000000 RUB and 5.00000000 RUB of it is spent or held',
    );
    const additions = ledger.counterAdditions();
    expect(additions.map((c) => [c.period, c.held.toFixed(), c.spent.toFixed()])).toEqual([
      ['day', '2', '0'],
      ['week', '2', '0'],
      ['month', '2', '0'],
      ['total', '2', '0'],
    ]);
  });
});
