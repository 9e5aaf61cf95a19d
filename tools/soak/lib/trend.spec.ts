import { cycle, MIX } from './traffic.mjs';
import {
  formatReport,
  judgeRun,
  judgeSeries,
  MIN_JUDGED_MINUTES,
  parseSoakOptions,
  slope,
} from './trend.mjs';

/** A sample every 10 s for `minutes`, memory `at(t)` MB. */
const series = (minutes: number, at: (t: number) => number) =>
  Array.from({ length: minutes * 6 + 1 }, (_, i) => ({ t: i / 6, y: at(i / 6) }));
/** A GC sawtooth: up 12 MB over a minute, then back. */
const sawtooth = (t: number) => 150 + 12 * (t % 1);
const judged = { minutes: 10, maxSlope: 1, noiseMb: 4 };

describe('slope', () => {
  it('is the least-squares slope, in MB per minute', () => {
    expect(slope([0, 1, 2, 3].map((t) => ({ t, y: 100 + 2 * t })))).toBeCloseTo(2);
    expect(
      slope([
        { t: 0, y: 1 },
        { t: 1, y: 5 },
        { t: 2, y: 3 },
      ]),
    ).toBeCloseTo(1);
  });

  it('has none below three points or without spread in time', () => {
    expect(
      slope([
        { t: 0, y: 1 },
        { t: 1, y: 2 },
      ]),
    ).toBeNull();
    expect(slope([0, 0, 0].map((t) => ({ t, y: t })))).toBeNull();
  });
});

describe('judgeSeries', () => {
  it('sees a leak of 3 MB/min over the second half', () => {
    const verdict = judgeSeries(
      series(10, (t) => sawtooth(t) + 3 * t),
      judged,
    );
    expect(verdict.trend).toBe(true);
    expect(verdict.slope).toBeGreaterThan(2.5);
    expect(verdict.growthMb).toBeGreaterThan(12);
  });

  it('calls a GC sawtooth around a flat line flat', () => {
    const verdict = judgeSeries(series(10, sawtooth), judged);
    expect(verdict.trend).toBe(false);
    expect(Math.abs(verdict.slope!)).toBeLessThan(1);
  });

  it('leaves growth in the first half (warm-up) out', () => {
    const warmUp = (t: number) => (t < 4 ? 100 + 10 * t : 140) + (t % 0.5);
    expect(judgeSeries(series(10, warmUp), judged).trend).toBe(false);
  });

  it('needs both the slope and the growth over the second half above their thresholds', () => {
    // 2 MB/min, but only 3 MB over a 1.5 min half: below the noise floor.
    const shortRise = series(10, (t) => (t >= 8.5 ? 140 + 2 * (t - 8.5) : 140)).filter((p) => p.t <= 10);
    const onlyTail = shortRise.filter((p) => p.t < 5 || p.t >= 8.5);
    expect(judgeSeries(onlyTail, judged).trend).toBe(false);
    // 0.8 MB/min for 5 min: 4 MB, under the slope limit.
    expect(
      judgeSeries(
        series(10, (t) => 140 + 0.8 * t),
        judged,
      ).trend,
    ).toBe(false);
  });

  it(`judges nothing when the second half is under ${MIN_JUDGED_MINUTES} min (the short mode)`, () => {
    const steep = series(1, (t) => 140 + 60 * t);
    const verdict = judgeSeries(steep, { ...judged, minutes: 0.5 });
    expect(verdict.slope).toBeCloseTo(60);
    expect(verdict.trend).toBe(false);
  });
});

describe('judgeRun', () => {
  const ops = (ok: number, failed: number) => ({ chat: { ok, failed, latencies: [10, 20, 30] } });
  const flat = [{ name: 'api-gateway', measure: 'RSS', points: series(10, sawtooth) }];
  const options = { ...judged, maxErrorRate: 0.01 };

  it('passes with few errors and no trend', () => {
    const verdict = judgeRun({ operations: ops(995, 5), series: flat, options });
    expect(verdict).toMatchObject({ pass: true, total: 1000, errorRate: 0.005, trends: [] });
  });

  it('fails above the error rate, on no completed operation, and on a trend, saying which', () => {
    expect(judgeRun({ operations: ops(980, 20), series: flat, options })).toMatchObject({
      pass: false,
      reasons: ['error rate 2.00 % above 1.00 %'],
    });
    expect(judgeRun({ operations: ops(0, 0), series: flat, options }).reasons).toEqual([
      'no operation completed',
    ]);
    const leaking = [...flat, { name: 'inference', measure: 'RSS', points: series(10, (t) => 150 + 2 * t) }];
    expect(judgeRun({ operations: ops(1000, 0), series: leaking, options })).toMatchObject({
      pass: false,
      trends: ['inference RSS'],
      reasons: ['memory grows: inference RSS'],
    });
  });

  it('prints throughput, errors and each process at the start, the middle and the end', () => {
    const points = series(10, (t) => 100 + t);
    const verdict = judgeRun({
      operations: ops(600, 0),
      series: [{ name: 'media', measure: 'RSS', points }],
      options,
    });
    const report = formatReport({
      verdict,
      operations: ops(600, 0),
      seconds: 600,
      options: { ...options, rate: 1 },
    });
    expect(report).toContain('Throughput 1.00 ok operations/s; 600 operations, 0 failed (error rate 0.00 %');
    expect(report).toMatch(/media\s+RSS\s+100\.0\s+105\.0\s+110\.0\s+\+1\.00\s+\+5\.0\s+flat/);
    expect(report).toContain('Verdict: PASS');
  });
});

describe('parseSoakOptions', () => {
  it('defaults to 10 minutes with a sample every 10 s', () => {
    expect(parseSoakOptions([])).toMatchObject({
      minutes: 10,
      rate: 4,
      sampleSeconds: 10,
      maxErrorRate: 0.01,
    });
  });

  it('takes a short run, sampling about 20 times', () => {
    expect(parseSoakOptions(['--minutes', '0.5'])).toMatchObject({ minutes: 0.5, sampleSeconds: 1.5 });
    expect(parseSoakOptions(['--minutes=2', '--rate=8'])).toMatchObject({
      minutes: 2,
      rate: 8,
      sampleSeconds: 6,
    });
  });

  it('refuses unknown options and values that are not positive numbers', () => {
    expect(() => parseSoakOptions(['--minute', '1'])).toThrow('unknown option --minute');
    expect(() => parseSoakOptions(['--minutes', '-1'])).toThrow('--minutes must be a positive number');
    expect(() => parseSoakOptions(['--rate'])).toThrow('--rate needs a value');
  });
});

describe('the traffic mix', () => {
  it('runs every operation as often as its weight in each cycle, spread out', () => {
    const order = cycle(MIX);
    expect(order).toHaveLength(20);
    for (const [name, weight] of Object.entries(MIX))
      expect(order.filter((n) => n === name)).toHaveLength(weight);
    // Within the cycle no operation follows itself (the cycle's last chat meets the next one's first).
    expect(order.slice(1).every((name, i) => name !== order[i])).toBe(true);
  });
});
