// The soak's arithmetic and verdict (pure, so the unit test covers it): options, the least-squares
// slope of a memory series over the second half of the run, whether that is a growth trend, the
// error rate, and the printed report.

export const USAGE = `npm run soak -- [options]

  --minutes M             how long the mixed traffic runs (0.5 is a short check)   [10]
  --rate N                operations started per second, steady                      [4]
  --max-in-flight N       operations running at once; one more is counted an error   [32]
  --sample-seconds S      seconds between two memory samples                         [10, at most a tenth of the run]
  --max-error-rate R      fail above this share of failed operations                 [0.01]
  --max-slope MB          fail when a process's memory grows faster than this over the second half, in MB/min [1]
  --noise-mb MB           ...and by more than this over the second half (GC and JIT noise)           [4]
                          memory is judged only when the second half lasts 2 min or more: a shorter run
                          (--minutes 0.5 checks the machinery) prints the slopes and judges the errors only
  --database-url URL      the PostgreSQL server (the soak makes and drops a database of its own)
                          [postgres://postgres@127.0.0.1:5432/postgres]
  --nats-url URL          use this NATS instead of a private nats-server
`;

const DEFAULTS = {
  minutes: 10,
  rate: 4,
  maxInFlight: 32,
  sampleSeconds: null,
  maxErrorRate: 0.01,
  maxSlope: 1,
  noiseMb: 4,
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: null,
  help: false,
};

const NUMBERS = {
  '--minutes': 'minutes',
  '--rate': 'rate',
  '--max-in-flight': 'maxInFlight',
  '--sample-seconds': 'sampleSeconds',
  '--max-error-rate': 'maxErrorRate',
  '--max-slope': 'maxSlope',
  '--noise-mb': 'noiseMb',
};
const STRINGS = { '--database-url': 'databaseUrl', '--nats-url': 'natsUrl' };

/** The command line, with defaults; throws on an unknown option or a value that is not a positive number. */
export function parseSoakOptions(argv) {
  const options = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      options.help = true;
      continue;
    }
    const key = NUMBERS[flag] ?? STRINGS[flag];
    if (!key) throw new Error(`unknown option ${argv[i]}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (NUMBERS[flag]) {
      const number = Number(value);
      if (!Number.isFinite(number) || number <= 0) throw new Error(`${flag} must be a positive number`);
      options[key] = number;
    } else options[key] = value;
  }
  // About 20 samples whatever the length: every 10 s in a 10-minute run, every 1.5 s in a 30 s one.
  options.sampleSeconds ??= Math.max(1, Math.min(10, (options.minutes * 60) / 20));
  return options;
}

/** Least-squares slope of `y` over `t` (points `{ t, y }`), or null with fewer than 3 points or no spread in t. */
export function slope(points) {
  if (points.length < 3) return null;
  const n = points.length;
  const meanT = points.reduce((sum, p) => sum + p.t, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.t - meanT) * (p.y - meanY);
    variance += (p.t - meanT) ** 2;
  }
  return variance === 0 ? null : covariance / variance;
}

/** A second half shorter than this is warm-up, not a trend: its slopes are printed, not judged. */
export const MIN_JUDGED_MINUTES = 2;

/**
 * Whether one process's memory (`points`: `{ t, y }`, t in minutes from the start, y in MB) grows:
 * the slope over the second half of the run (the first lets heaps, caches and the JIT settle), in
 * MB/min, is a trend when it is above `maxSlope` and what it adds over that half is above `noiseMb`.
 */
export function judgeSeries(points, { minutes, maxSlope, noiseMb }) {
  const half = minutes / 2;
  const late = points.filter((p) => p.t >= half);
  const perMinute = slope(late);
  if (perMinute === null) return { slope: null, growthMb: null, trend: false, samples: late.length };
  const growthMb = perMinute * (Math.max(...late.map((p) => p.t)) - Math.min(...late.map((p) => p.t)));
  return {
    slope: perMinute,
    growthMb,
    trend: minutes / 2 >= MIN_JUDGED_MINUTES && perMinute > maxSlope && growthMb > noiseMb,
    samples: late.length,
  };
}

/** The sample nearest to `minute` (the last one for Infinity). */
export function sampleAt(points, minute) {
  if (minute === Infinity) return points.at(-1) ?? null;
  return points.reduce(
    (best, p) => (best === null || Math.abs(p.t - minute) < Math.abs(best.t - minute) ? p : best),
    null,
  );
}

/**
 * The verdict of a run: `operations` is `{ name: { ok, failed } }`, `series` is
 * `[{ name, measure, points }]`. It passes when the failed share is at most `maxErrorRate` and no
 * series has a trend.
 */
export function judgeRun({ operations, series, options }) {
  const ok = Object.values(operations).reduce((sum, op) => sum + op.ok, 0);
  const failed = Object.values(operations).reduce((sum, op) => sum + op.failed, 0);
  const total = ok + failed;
  const errorRate = total === 0 ? 1 : failed / total;
  const judged = series.map((s) => ({ ...s, ...judgeSeries(s.points, options) }));
  const trends = judged.filter((s) => s.trend).map((s) => `${s.name} ${s.measure}`);
  const reasons = [];
  if (total === 0) reasons.push('no operation completed');
  else if (errorRate > options.maxErrorRate)
    reasons.push(`error rate ${percent(errorRate)} above ${percent(options.maxErrorRate)}`);
  if (trends.length > 0) reasons.push(`memory grows: ${trends.join(', ')}`);
  const memoryJudged = options.minutes / 2 >= MIN_JUDGED_MINUTES;
  return { ok, failed, total, errorRate, judged, trends, memoryJudged, pass: reasons.length === 0, reasons };
}

const percent = (share) => `${(share * 100).toFixed(2)} %`;
const mb = (value) => (value === null || value === undefined ? '-' : value.toFixed(1));
const signed = (value, digits = 2) =>
  value === null || value === undefined ? '-' : `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * The printed report: throughput and errors per operation, memory of each process at the start, the
 * middle and the end with its second-half slope, and the verdict.
 */
export function formatReport({ verdict, operations, seconds, options }) {
  const opRows = Object.entries(operations).map(([name, op]) => [
    name,
    op.ok + op.failed,
    op.failed,
    (op.ok / seconds).toFixed(2),
    op.latencies.length ? `${Math.round(quantile(op.latencies, 0.5))}` : '-',
    op.latencies.length ? `${Math.round(quantile(op.latencies, 0.95))}` : '-',
  ]);
  const memoryRows = verdict.judged.map((s) => [
    s.name,
    s.measure,
    mb(sampleAt(s.points, 0)?.y),
    mb(sampleAt(s.points, options.minutes / 2)?.y),
    mb(sampleAt(s.points, Infinity)?.y),
    signed(s.slope),
    signed(s.growthMb, 1),
    !verdict.memoryJudged ? 'not judged' : s.trend ? 'GROWS' : 'flat',
  ]);
  const lines = [
    `Soak: ${(seconds / 60).toFixed(1)} min of mixed traffic at ${options.rate} operations/s started, distributed mode`,
    `Throughput ${(verdict.ok / seconds).toFixed(2)} ok operations/s; ${verdict.total} operations, ${verdict.failed} failed ` +
      `(error rate ${percent(verdict.errorRate)}, limit ${percent(options.maxErrorRate)})`,
    '',
    table(['operation', 'count', 'failed', 'ok/s', 'p50 ms', 'p95 ms'], opRows),
    '',
    `Memory per process (MB) at the start, the middle and the end, each read after a full GC (Node: RSS and ` +
      `V8 heap used; PostgreSQL backends: private memory summed); slope over the second half (MB/min), ` +
      `a trend above ${options.maxSlope} MB/min and ${options.noiseMb} MB:`,
    table(['process', 'measure', 'start', 'middle', 'end', 'MB/min', 'Δ 2nd half', 'trend'], memoryRows),
    '',
    verdict.pass
      ? `Verdict: PASS (error rate within the limit${verdict.memoryJudged ? ', no growth trend' : `; memory not judged, the second half is under ${MIN_JUDGED_MINUTES} min`})`
      : `Verdict: FAIL (${verdict.reasons.join('; ')})`,
  ];
  return lines.join('\n');
}

export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
