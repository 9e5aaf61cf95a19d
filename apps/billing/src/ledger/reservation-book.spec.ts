import { Decimal } from 'decimal.js';
import { spendingWindows } from '../limits/spending-windows';
import { type HeldReservation, type KeyLimit } from './ledger.repository';
import {
  type ExtendOperation,
  ReservationBook,
  type ReservationBookState,
  type ReserveOperation,
} from './reservation-book';

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
    running: new Map(),
    ...overrides,
  });
}

function running(generationId: string, amount: string, apiKeyId: string | null = null): HeldReservation {
  return {
    generationId,
    organizationId: org,
    apiKeyId,
    amount: d(amount),
    status: 'held',
    createdAt: at,
    expiresAt: new Date(at.getTime() + 45_000),
    context: null,
  };
}

function extension(generationId: string, amount: string): ExtendOperation {
  return {
    kind: 'extend',
    generationId,
    organizationId: org,
    amount: d(amount),
    now: new Date(at.getTime() + 1_000),
    leaseMs: 45_000,
    ttlMs: 600_000,
  };
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

  it('grows running holds in one batch by what the balance still has free, the reserves before them counted', () => {
    const ledger = book({
      held: new Map([[org, d('1')]]),
      running: new Map([
        ['a', running('a', '0.5')],
        ['b', running('b', '0.5')],
      ]),
    });
    expect(ledger.reserve(op({ maxAmount: d('1'), minAmount: d('0.1') })).reservedAmount).toBe('1.00000000');
    expect(ledger.extend(extension('a', '0.25'))).toEqual({
      generationId: 'a',
      reservedAmount: '0.75000000',
      extendedAmount: '0.25000000',
    });
    // 2.5 − 1 held before − 1 reserved − 0.25 grown = 0.25 left for b.
    expect(ledger.extend(extension('b', '1')).extendedAmount).toBe('0.25000000');
    expect(ledger.extend(extension('a', '1')).extendedAmount).toBe('0.00000000');
    expect(ledger.growths().map((g) => [g.generationId, g.by.toFixed()])).toEqual([
      ['a', '0.25'],
      ['b', '0.25'],
    ]);
  });

  it('caps a growth by the tightest limit of the key, counted in the windows the hold was made in', () => {
    const limits: [string, KeyLimit[]][] = [[`${org}/${key}`, [{ period: 'day', amount: d('0.6') }]]];
    const ledger = book({ running: new Map([['a', running('a', '0.5', key)]]) }, limits);
    expect(ledger.extend(extension('a', '1')).extendedAmount).toBe('0.60000000');
    expect(ledger.extend(extension('a', '1')).extendedAmount).toBe('0.00000000');
    expect(ledger.counterAdditions().every((c) => c.held.equals(d('0.6')))).toBe(true);
  });

  it("answers not_found for a hold that is not running, expired, or another organization's", () => {
    const expired = { ...running('old', '0.5'), expiresAt: at };
    const foreign = { ...running('theirs', '0.5'), organizationId: other };
    const ledger = book({
      running: new Map([
        ['old', expired],
        ['theirs', foreign],
        ['done', { ...running('done', '0.5'), status: 'settled' as const }],
      ]),
    });
    for (const id of ['missing', 'old', 'theirs', 'done']) {
      expect(() => ledger.extend(extension(id, '0.1'))).toThrow(
        expect.objectContaining({ code: 'not_found' }) as Error,
      );
    }
  });
});
