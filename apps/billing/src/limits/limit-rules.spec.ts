import { Decimal } from 'decimal.js';
import { limitExceededMessage, tightestLimit } from './limit-rules';
import { spendingWindows } from './spending-windows';

const windows = spendingWindows(new Date('2026-11-25T10:00:00Z'));
const d = (value: string) => new Decimal(value);

describe('tightestLimit', () => {
  it('answers null for a key without limits', () => {
    expect(tightestLimit([], [], windows)).toBeNull();
  });

  it('counts held and spent against each limit and picks the one with the least room', () => {
    const tightest = tightestLimit(
      [
        { period: 'day', amount: d('10') },
        { period: 'month', amount: d('12') },
      ],
      [
        { period: 'day', held: d('1'), spent: d('2') },
        { period: 'month', held: d('1'), spent: d('9') },
      ],
      windows,
    );
    expect(tightest).toMatchObject({ period: 'month', used: d('10'), room: d('2') });
    expect(tightest?.windowStart.toISOString()).toBe('2026-11-01T00:00:00.000Z');
  });

  it('treats a window without a counter as unused and prefers the shorter period on a tie', () => {
    expect(
      tightestLimit(
        [
          { period: 'total', amount: d('5') },
          { period: 'week', amount: d('5') },
        ],
        [],
        windows,
      ),
    ).toMatchObject({ period: 'week', room: d('5') });
  });

  it('reports negative room when a limit was lowered below what is already used', () => {
    expect(
      tightestLimit(
        [{ period: 'day', amount: d('1') }],
        [{ period: 'day', held: d('0'), spent: d('3') }],
        windows,
      )?.room,
    ).toEqual(d('-2'));
  });
});

describe('limitExceededMessage', () => {
  it('names the period, the amounts and when the window resets', () => {
    const message = limitExceededMessage(
      { period: 'day', limit: d('10'), used: d('9.5'), room: d('0.5'), windowStart: windows[0].start },
      d('1'),
    );
    expect(message).toContain('day limit');
    expect(message).toContain('10.00000000 RUB');
    expect(message).toContain('9.50000000 RUB');
    expect(message).toContain('at least 1.00000000 RUB');
    expect(message).toContain('2026-11-26T00:00:00.000Z');
  });

  it('says a total limit never resets', () => {
    expect(
      limitExceededMessage(
        { period: 'total', limit: d('1'), used: d('1'), room: d('0'), windowStart: windows[3].start },
        d('0'),
      ),
    ).toContain('never resets');
  });
});
