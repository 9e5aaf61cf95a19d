import { backoffDelayMs } from './job-backoff';

describe('backoffDelayMs', () => {
  const settings = { firstDelayMs: 1_000, maxDelayMs: 10_000 };

  it.each([
    [0, 1_000],
    [1, 2_000],
    [2, 4_000],
    [3, 8_000],
    [4, 10_000],
    [50, 10_000],
  ])('waits %i steps in: %i ms at most', (step, expected) => {
    expect(backoffDelayMs(settings, step, () => 0)).toBe(expected);
  });

  it('takes at most a tenth off, so that jobs created together spread out', () => {
    expect(backoffDelayMs(settings, 1, () => 0.999)).toBeGreaterThanOrEqual(1_800);
    expect(backoffDelayMs(settings, 1, () => 0.999)).toBeLessThan(2_000);
  });
});
