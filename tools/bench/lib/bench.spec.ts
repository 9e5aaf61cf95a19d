import { connectionsFor, parseOptions } from './options.mjs';
import { combineReplicas, fromProbe, fromWrk, parseResultLine, splitConnections } from './parse.mjs';
import {
  cpuSecondsBetween,
  HZ,
  parseCpuLines,
  parseStat,
  privateMbOf,
  processTree,
  residentMbOf,
  snapshotProcesses,
} from './proc.mjs';
import {
  aggregate,
  checkTargets,
  formatMs,
  markdownTable,
  median,
  natsHop,
  renderReport,
  resultsTable,
} from './summary.mjs';

describe('the load generators’ output', () => {
  const wrkOutput = [
    'Running 3s test @ http://127.0.0.1:18901/v1/chat/completions',
    '  1 threads and 32 connections',
    '  Non-2xx or 3xx responses: 2',
    'WRKJSON {"requests":30000,"duration_s":3.001,"rps":9996.7,"err_connect":0,"err_read":1,"err_write":0,"err_status":2,"err_timeout":0,"lat_p50_us":3150,"lat_p90_us":4100,"lat_p99_us":8020,"lat_max_us":15000}',
    '',
  ].join('\n');

  it('finds the JSON line of wrk and turns it into milliseconds and one error count', () => {
    const raw = parseResultLine(wrkOutput, 'WRKJSON');
    expect(fromWrk(raw)).toEqual({
      requests: 30000,
      rps: 9996.7,
      p50_ms: 3.15,
      p99_ms: 8.02,
      errors: 3,
      stalls: 0,
    });
  });

  it('reads the probe’s time to first byte as the latency and keeps its stalls apart', () => {
    const raw = parseResultLine(
      'PROBEJSON {"requests":900,"duration_s":3.01,"rps":299,"errors":1,"stalls":2,"max_gap_ms":1200,"ttfb_p50_ms":1.2,"ttfb_p99_ms":4.5,"total_p50_ms":215,"total_p99_ms":240}\n',
      'PROBEJSON',
    );
    expect(fromProbe(raw)).toEqual({
      requests: 900,
      rps: 299,
      p50_ms: 1.2,
      p99_ms: 4.5,
      total_p50_ms: 215,
      max_gap_ms: 1200,
      errors: 1,
      stalls: 2,
    });
  });

  it('spreads connections over replicas and reads their loads as one', () => {
    expect(splitConnections(32, 3)).toEqual([11, 11, 10]);
    expect(splitConnections(1, 2)).toEqual([1]);
    expect(
      combineReplicas([
        { requests: 100, rps: 50, p50_ms: 2, p99_ms: 9, errors: 1, stalls: 0 },
        { requests: 120, rps: 60, p50_ms: 3, p99_ms: 7, errors: 0, stalls: 2 },
      ]),
    ).toEqual({ requests: 220, rps: 110, p50_ms: 3, p99_ms: 9, errors: 1, stalls: 2 });
    expect(combineReplicas([{ requests: 1, rps: 1 }, { failed: 'refused' }])).toEqual({ failed: 'refused' });
  });

  it('has no latency when wrk completed no request', () => {
    const raw = parseResultLine(
      'WRKJSON {"requests":0,"duration_s":3.0,"rps":0.0,"err_connect":0,"err_read":0,"err_write":0,"err_status":0,"err_timeout":0,"lat_p50_us":0,"lat_p90_us":0,"lat_p99_us":0,"lat_max_us":0}',
      'WRKJSON',
    );
    expect(fromWrk(raw)).toMatchObject({ requests: 0, rps: 0, p50_ms: null, p99_ms: null });
  });

  it('has no result when the line is missing or cut off', () => {
    expect(parseResultLine('unable to connect to 127.0.0.1:1 Connection refused\n', 'WRKJSON')).toBeNull();
    expect(parseResultLine('WRKJSON {"requests":', 'WRKJSON')).toBeNull();
  });
});

describe('/proc', () => {
  it('parses a stat line whose command name holds spaces and parentheses', () => {
    const fields = ['S', '1', '77', '77', '0', '-1', '4194560', '1', '0', '0', '0', '250', '40', '7', '3'];
    const rest = [...fields, '20', '0', '1', '0', '100', '1000000', '2048', ...Array(27).fill('0')];
    expect(parseStat(`4242 (tmux: (server)) ${rest.join(' ')}`)).toEqual({
      pid: 4242,
      comm: 'tmux: (server)',
      ppid: 1,
      utime: 250,
      stime: 40,
      cutime: 7,
      cstime: 3,
      rssPages: 2048,
    });
  });

  it('reads this very process among the machine’s processes', () => {
    const self = snapshotProcesses().get(process.pid);
    expect(self?.ppid).toBe(process.ppid);
    expect(self?.rssPages).toBeGreaterThan(0);
    expect(privateMbOf(process.pid)).toBeGreaterThan(1);
    expect(privateMbOf(0)).toBeNull();
    expect(residentMbOf(process.pid)).toBeGreaterThanOrEqual(privateMbOf(process.pid)!);
    expect(residentMbOf(0)).toBeNull();
  });

  const stat = (pid: number, ppid: number, utime: number) => ({
    pid,
    ppid,
    comm: 'x',
    utime,
    stime: 0,
    cutime: 0,
    cstime: 0,
    rssPages: 1,
  });

  it('takes a root and all its descendants, not its parent or siblings', () => {
    const processes = new Map(
      [stat(1, 0, 0), stat(10, 1, 0), stat(11, 10, 0), stat(12, 11, 0), stat(20, 1, 0)].map((s) => [
        s.pid,
        s,
      ]),
    );
    expect([...processTree([10], processes)].sort()).toEqual([10, 11, 12]);
    expect([...processTree([99], processes)]).toEqual([]);
  });

  it('counts the CPU of a process that started between two snapshots whole', () => {
    const before = new Map([[10, stat(10, 1, 100)]]);
    const after = new Map([
      [10, stat(10, 1, 150)],
      [11, stat(11, 10, 20)],
    ]);
    expect(cpuSecondsBetween(before, after, new Set([10, 11]))).toBeCloseTo(70 / HZ);
  });

  it('reads busy and all ticks per core from /proc/stat', () => {
    const text =
      'cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 100 5 20 800 10 3 2 1 0 0\ncpu1 50 0 10 900 5 1 1 0 0 0\nintr 1\n';
    expect(parseCpuLines(text)).toEqual([
      { busy: 130, all: 941 },
      { busy: 62, all: 967 },
    ]);
  });
});

describe('options', () => {
  it('defaults to both modes, 1/32/128 connections, 32 and 256 streams, 3 reps of 10 s', () => {
    const options = parseOptions([]);
    expect(options).toMatchObject({
      modes: ['embedded', 'distributed'],
      connections: [1, 32, 128],
      streams: [32, 256],
      duration: 10,
      reps: 3,
      soak: 0,
      build: true,
      pin: true,
    });
    expect(connectionsFor(options, 'embed')).toEqual([1, 32, 128]);
  });

  it('makes a quick run short, and lets options beside --quick override it', () => {
    const quick = parseOptions(['--quick']);
    expect(quick).toMatchObject({ duration: 3, reps: 1, connections: [1, 32] });
    expect(connectionsFor(quick, 'chat')).toEqual([1, 32]);
    expect(connectionsFor(quick, 'stream')).toEqual([32]);
    const given = parseOptions(['--quick', '--connections', '1,128', '--modes', 'embedded', '--soak', '300']);
    expect(given).toMatchObject({ connections: [1, 128], modes: ['embedded'], soak: 300 });
    expect(connectionsFor(given, 'stream')).toEqual([1, 128]);
  });

  it('refuses what it does not know', () => {
    expect(() => parseOptions(['--modes', 'cluster'])).toThrow('--modes: unknown cluster');
    expect(() => parseOptions(['--connections', '0'])).toThrow('positive integers');
    expect(() => parseOptions(['--duration'])).toThrow('--duration needs a value');
    expect(() => parseOptions(['--fast'])).toThrow('unknown option --fast');
  });

  it('hands the history suite its own options', () => {
    expect(parseOptions(['--suite', 'history', '--rows', '1000'])).toEqual({
      suite: 'history',
      rest: ['--rows', '1000'],
    });
  });
});

describe('the summary', () => {
  const run = (
    target: string,
    scenario: string,
    connections: number,
    rps: number,
    p50: number,
    extra = {},
  ) => ({
    target,
    scenario,
    connections,
    rps,
    p50_ms: p50,
    p99_ms: p50 * 3,
    cpu_ms_per_req: 1000 / rps,
    foreign_pct: 5,
    errors: 0,
    stalls: 0,
    ...extra,
  });

  it('takes medians over repetitions', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null, undefined, NaN])).toBeNull();
  });

  const runs = [
    run('embedded', 'chat', 1, 500, 2.5),
    run('embedded', 'chat', 1, 400, 2.0),
    run('embedded', 'chat', 1, 450, 3.0),
    run('direct', 'chat', 1, 10000, 0.1),
    run('raw', 'chat', 1, 2500, 0.4),
    run('distributed', 'chat', 1, 300, 4.0, {
      components_ms_per_req: { 'nats-server': 0.3, 'api-gateway': 1 },
    }),
    run('direct', 'ttfb', 32, 140, 0.5),
    run('embedded', 'ttfb', 32, 130, 1.2),
    run('embedded', 'ttfb', 256, 900, 3, { stalls: 1 }),
    run('direct', 'chat', 32, 10000, 3),
    run('embedded', 'chat', 32, 1000, 30, { failed: 'wrk died' }),
  ];
  const rows = aggregate(runs, ['direct', 'raw', 'embedded', 'distributed']);
  const row = (scenario: string, connections: number, target: string): any =>
    rows.find((r: any) => r.scenario === scenario && r.connections === connections && r.target === target);

  it('gives one row per scenario, connections and target, in the targets’ order', () => {
    expect(rows.map((r: any) => `${r.scenario}/${r.connections}/${r.target}`)).toEqual([
      'chat/1/direct',
      'chat/1/raw',
      'chat/1/embedded',
      'chat/1/distributed',
      'chat/32/direct',
      'chat/32/embedded',
      'ttfb/32/direct',
      'ttfb/32/embedded',
      'ttfb/256/embedded',
    ]);
  });

  it('adds the latency over the mock alone and the throughput over the raw proxy', () => {
    expect(row('chat', 1, 'embedded')).toMatchObject({ reps: 3, rps: 450, p50_ms: 2.5, vs_raw: 450 / 2500 });
    expect(row('chat', 1, 'embedded').added_p50_ms).toBeCloseTo(2.4);
    expect(row('ttfb', 32, 'embedded').added_p50_ms).toBeCloseTo(0.7);
    expect(row('ttfb', 256, 'embedded').added_p50_ms).toBeNull();
  });

  it('counts a failed run and leaves it out of the medians', () => {
    expect(row('chat', 32, 'embedded')).toMatchObject({ reps: 0, failed: 1, rps: null });
  });

  it('checks the issue’s targets it has figures for', () => {
    const checks = checkTargets(
      rows,
      ['embedded'],
      [
        {
          target: 'embedded',
          seconds: 300,
          rps: 1000,
          errors: 0,
          processes: [
            { pid: 1, name: 'node', start_private_mb: 200, end_private_mb: 210, change_pct: 5 },
            { pid: 2, name: 'postgres', start_private_mb: 20, end_private_mb: 19, change_pct: -5 },
            // A backend warming up: 92 % but a megabyte and a bit.
            { pid: 3, name: 'postgres', start_private_mb: 1.3, end_private_mb: 2.5, change_pct: 92.3 },
          ],
        },
      ],
    );
    const met = Object.fromEntries(checks.map((c: any) => [c.what, [c.value, c.met]]));
    expect(met).toEqual({
      'added p50, chat, 1 connection': ['2.40 ms', 'no'],
      'added TTFB p50, 32 streams': ['0.70 ms', 'yes'],
      '256 streams': ['1 stalls, 0 errors', 'no'],
      'req/s over Portkey, chat, 32 connections': [null, 'n/a'],
      'CPU per request over Portkey, chat, 32 connections': [null, 'n/a'],
      'private memory of every process over the soak': ['worst 5.0 %', 'yes'],
    });
  });

  it('judges a soak by the processes whose private memory moved more than 2 MB', () => {
    const soak = (processes: object[]) => [
      { target: 'embedded', seconds: 300, rps: 1, errors: 0, processes },
    ];
    const memory = (processes: object[]) =>
      checkTargets(rows, ['embedded'], soak(processes)).find((c: any) => c.what.startsWith('private memory'));
    expect(
      memory([{ pid: 1, name: 'node', start_private_mb: 100, end_private_mb: 130, change_pct: 30 }]),
    ).toMatchObject({ value: 'worst 30.0 %', met: 'no' });
    expect(
      memory([{ pid: 3, name: 'postgres', start_private_mb: 1.3, end_private_mb: 2.5, change_pct: 92.3 }]),
    ).toMatchObject({ value: 'worst 0.0 %', met: 'yes' });
  });

  it('compares with Portkey when a run measured it', () => {
    const withPortkey = aggregate(
      [run('embedded', 'chat', 32, 1200, 20), run('portkey', 'chat', 32, 400, 60)],
      ['portkey', 'embedded'],
    );
    const checks = checkTargets(withPortkey, ['embedded']).filter((c: any) => c.what.includes('Portkey'));
    expect(checks.map((c: any) => [c.value, c.met])).toEqual([
      ['3.00×', 'yes'],
      ['0.33×', 'yes'],
    ]);
  });

  it('states what the NATS hop adds, nats-server’s own CPU included', () => {
    expect(natsHop(rows)).toEqual([
      {
        connections: 1,
        added_p50_ms: 1.5,
        added_cpu_ms_per_req: 1000 / 300 - 1000 / 450,
        nats_server_cpu_ms_per_req: 0.3,
        rps_ratio: 300 / 450,
      },
    ]);
  });

  it('renders padded Markdown tables', () => {
    expect(markdownTable(['a', 'long head'], [['wide cell', 1]])).toBe(
      ['| a         | long head |', '| --------- | --------- |', '| wide cell | 1         |'].join('\n'),
    );
    expect(formatMs(0.0512)).toBe('0.05');
    expect(formatMs(12.34)).toBe('12.3');
    expect(formatMs(1234.5)).toBe('1235');
    expect(resultsTable(rows).split('\n')[4]).toBe(
      '| chat        | 1     | embedded    | 450    | 2.50   | 7.50   | 2.40    | 2.22       | 0.18× | 0   | 5         |',
    );
  });

  it('puts the table, the NATS hop and the checks in one report', () => {
    const report = renderReport({
      meta: {
        date: '2026-11-25 16:00 UTC',
        commit: 'abc1234',
        host: 'vm',
        cores: 2,
        node: 'v20',
        wrk: 'wrk 4.1.0',
        pin: 'Not pinned',
        rateLimits: 'off',
        duration: 3,
        reps: 1,
      },
      rows,
      checks: checkTargets(rows, ['embedded']),
      hop: natsHop(rows),
      soaks: [],
    });
    expect(report).toContain('# Gateway benchmark 2026-11-25 16:00 UTC');
    expect(report).toContain('| chat        | 1     | embedded    | 450');
    expect(report).toContain('The NATS hop (distributed minus embedded, chat):');
    expect(report).toContain('| embedded | added p50, chat, 1 connection');
    expect(report).toContain('CPU ms per request by process, distributed:');
    expect(report).not.toContain('Noisy run');
  });

  it('flags a run during which other processes took much of the machine', () => {
    const noisy = aggregate([{ ...run('direct', 'chat', 1, 100, 1), foreign_pct: 80 }], ['direct']);
    const report = renderReport({
      meta: {
        date: 'd',
        commit: 'c',
        host: 'h',
        cores: 2,
        node: 'n',
        wrk: 'w',
        pin: 'p',
        duration: 3,
        reps: 1,
      },
      rows: noisy,
      checks: [],
      hop: [],
      soaks: [],
    });
    expect(report).toContain('**Noisy run**: other processes took a median 80 % of all cores');
  });
});
