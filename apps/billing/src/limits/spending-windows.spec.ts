import { spendingWindows, windowStart } from './spending-windows';

describe('windowStart', () => {
  it.each([
    ['day', '2026-11-25T23:59:59.999Z', '2026-11-25T00:00:00.000Z'],
    ['day', '2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z'],
    ['week', '2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['week', '2026-11-25T12:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['week', '2026-11-29T23:59:59.999Z', '2026-11-23T00:00:00.000Z'],
    ['week', '2026-11-30T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['week', '2027-01-01T08:00:00.000Z', '2026-12-28T00:00:00.000Z'],
    ['month', '2026-11-30T23:59:59.999Z', '2026-11-01T00:00:00.000Z'],
    ['month', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['total', '2026-11-25T12:00:00.000Z', '1970-01-01T00:00:00.000Z'],
  ] as const)('puts a %s window of %s at %s (UTC, weeks from Monday)', (period, at, start) => {
    expect(windowStart(period, new Date(at)).toISOString()).toBe(start);
  });

  it('ignores the local time zone of the process', () => {
    // 23:30 UTC is already the next day east of UTC; the window must still be the UTC day.
    expect(windowStart('day', new Date('2026-03-31T23:30:00-00:00')).toISOString()).toBe(
      '2026-03-31T00:00:00.000Z',
    );
  });
});

describe('spendingWindows', () => {
  it('names one window per period', () => {
    expect(
      spendingWindows(new Date('2026-11-25T10:00:00Z')).map((w) => [w.period, w.start.toISOString()]),
    ).toEqual([
      ['day', '2026-11-25T00:00:00.000Z'],
      ['week', '2026-11-23T00:00:00.000Z'],
      ['month', '2026-11-01T00:00:00.000Z'],
      ['total', '1970-01-01T00:00:00.000Z'],
    ]);
  });
});
