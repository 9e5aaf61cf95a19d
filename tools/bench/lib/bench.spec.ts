import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { connectionsFor, parseOptions } from './options.mjs';
import { combineReplicas, fromProbe, fromWrk, parseResultLine, splitConnections } from './parse.mjs';
import {
  cpuSecondsBetween,
  HZ,
  PAGE_BYTES,
  parseCpuLines,
  parsePssMb,
  parseStat,
  privateMbOf,
  processTree,
  pssMbOf,
  pssOf,
  residentMbOf,
  snapshotProcesses,
} from './proc.mjs';
import { freePort, httpAnswers, waitUntil } from './processes.mjs';
import {
  aggregate,
  checkTargets,
  formatMs,
  idealStreamsPerSecond,
  longTable,
  markdownTable,
  median,
  memoryTables,
  natsHop,
  renderReport,
  resultsTable,
  soakTable,
} from './summary.mjs';

/** What a report's header says of the run; the tables are what the tests read. */
const REPORT_META = {
  date: 'd',
  commit: 'c',
  host: 'h',
  cores: 2,
  node: 'n',
  wrk: 'w',
  pin: 'p',
  duration: 3,
  reps: 1,
};

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

  it('reads the proportional set size from smaps_rollup', () => {
    const rollup = [
      '55d0c6a1e000-7ffd5b7f9000 ---p 00000000 00:00 0                          [rollup]',
      'Rss:              102400 kB',
      'Pss:               51200 kB',
      'Pss_Anon:          40000 kB',
      'Pss_File:          11200 kB',
      'Shared_Clean:      20000 kB',
    ].join('\n');
    expect(parsePssMb(rollup)).toBe(50);
    expect(parsePssMb('Rss: 1 kB\n')).toBeNull();
  });

  it('reads this very process’s PSS, which is no more than its RSS', () => {
    const own = parsePssMb(readFileSync('/proc/self/smaps_rollup', 'latin1'));
    const pss = pssMbOf(process.pid);
    expect(own).toBeGreaterThan(1);
    expect(pss).toBeGreaterThan(1);
    // Two readings a moment apart: the heap may have moved by a few MB in between.
    expect(Math.abs(pss! - own!)).toBeLessThan(8);
    expect(pss!).toBeLessThanOrEqual(residentMbOf(process.pid)! + 1);
    expect(pssMbOf(0)).toBeNull();
  });

  it('sums the PSS of a tree, counting a process it cannot read by its RSS', () => {
    const processes = snapshotProcesses();
    // Pid 0 has no /proc entry: a stand-in for a process whose smaps_rollup is unreadable.
    processes.set(0, { ...processes.get(process.pid)!, pid: 0, rssPages: 2560 });
    const { each, total, fallbacks } = pssOf(new Set([process.pid, 0, 999_999_999]), processes);
    expect(each.map((p: any) => p.pid)).toEqual([process.pid, 0]);
    expect(fallbacks).toBe(1);
    expect(each[1].mb).toBeCloseTo((2560 * PAGE_BYTES) / 1048576);
    expect(total).toBeCloseTo(each[0].mb + each[1].mb);
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
      scenarios: ['chat', 'stream', 'embed', 'ttfb', 'long'],
      longStreams: [64, 256],
      longChunks: 200,
      longDelayMs: 20,
      longDuration: 20,
    });
    expect(connectionsFor(options, 'embed')).toEqual([1, 32, 128]);
  });

  it('takes the long answers’ streams, frames, pacing and duration, and a short one in a quick run', () => {
    expect(parseOptions(['--quick'])).toMatchObject({ longDuration: 5, longStreams: [64, 256] });
    expect(
      parseOptions([
        '--quick',
        '--scenarios',
        'long',
        '--long-streams',
        '8,16',
        '--long-chunks',
        '50',
        '--long-delay-ms',
        '10',
        '--long-duration',
        '7',
      ]),
    ).toMatchObject({
      scenarios: ['long'],
      longStreams: [8, 16],
      longChunks: 50,
      longDelayMs: 10,
      longDuration: 7,
      duration: 3,
    });
    expect(() => parseOptions(['--long-streams', '0'])).toThrow('positive integers');
    expect(() => parseOptions(['--long-delay-ms', '-5'])).toThrow('--long-delay-ms takes positive integers');
    expect(() => parseOptions(['--long-chunks', '2.5'])).toThrow('positive integers');
    expect(() => parseOptions(['--long-duration', '0'])).toThrow('≥ 1');
    expect(() => parseOptions(['--scenarios', 'longer'])).toThrow('--scenarios: unknown longer');
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
  ].map((r: any) => ({ pss_max_mb: r.target === 'embedded' ? 180.4 : 60, ...r }));
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
      '| chat        | 1     | embedded    | 450    | 2.50   | 7.50   | 2.40    | 2.22       | 0.18× | 0   | 180    | 5         |',
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

  it('paces long answers against concurrency over the answer’s own length', () => {
    // 200 frames 20 ms apart: 4 s, plus 0.1 s; 64 streams keep up at 64 / 4.1 answers per second.
    expect(idealStreamsPerSecond(64, 200, 20)).toBeCloseTo(64 / 4.1);
    expect(idealStreamsPerSecond(256, 200, 20)).toBeCloseTo(256 / 4.1);
    expect(idealStreamsPerSecond(10, 50, 10)).toBeCloseTo(10 / 0.6);
  });

  describe('long answers', () => {
    const longRun = (target: string, streams: number, rps: number, extra = {}) => ({
      target,
      scenario: 'long',
      connections: streams,
      rps,
      p50_ms: 1.5,
      p99_ms: 6,
      total_p50_ms: 4060,
      cpu_ms_per_req: 2.5,
      foreign_pct: 3,
      errors: 0,
      stalls: 0,
      pace: rps / idealStreamsPerSecond(streams, 200, 20),
      pss_max_mb: 200,
      ...extra,
    });
    const longRows = aggregate(
      [
        longRun('direct', 64, 15.6, { p50_ms: 0.5, pss_max_mb: 60 }),
        longRun('embedded', 64, 15.4, {
          pss_max_mb: 210,
          components_pss_mb: { node: 150, postgres: 60 },
        }),
        longRun('embedded', 64, 15.0, {
          pss_max_mb: 230,
          components_pss_mb: { node: 165, postgres: 65 },
        }),
        longRun('embedded', 64, 15.2, {
          pss_max_mb: 220,
          components_pss_mb: { node: 160, postgres: 58 },
        }),
        longRun('embedded', 256, 40, { stalls: 3, errors: 1 }),
        run('embedded', 'chat', 32, 1000, 30, { pss_max_mb: 190 }),
      ],
      ['direct', 'embedded'],
    );
    const longRow = (streams: number, target: string): any =>
      longRows.find((r: any) => r.scenario === 'long' && r.connections === streams && r.target === target);

    it('takes the median pace and the largest PSS over repetitions, of the tree and of each process', () => {
      expect(longRow(64, 'embedded')).toMatchObject({
        reps: 3,
        rps: 15.2,
        total_p50_ms: 4060,
        pss_max_mb: 230,
        components_pss_mb: { node: 165, postgres: 65 },
      });
      expect(longRow(64, 'embedded').pace).toBeCloseTo(15.2 / (64 / 4.1));
      expect(longRow(64, 'embedded').added_p50_ms).toBeCloseTo(1);
      expect(longRows.map((r: any) => r.scenario)).toEqual(['chat', 'long', 'long', 'long']);
    });

    it('shows them in a table of their own, not in the request table', () => {
      expect(resultsTable(longRows)).not.toContain('long answer');
      const lines = longTable(longRows).split('\n');
      expect(lines[0]).toBe(
        '| streams | target   | streams/s | pace | TTFB p50 ms | TTFB p99 ms | +TTFB p50 ms | total p50 ms | CPU ms/answer | err | PSS MB | foreign % |',
      );
      expect(lines[3]).toBe(
        '| 64      | embedded | 15.2      | 0.97 | 1.50        | 6.00        | 1.00         | 4060         | 2.50          | 0   | 230    | 3         |',
      );
      // Errors and stalls both count.
      expect(lines[4]).toContain('| 256     | embedded | 40.0      | 0.64 |');
      expect(lines[4]).toMatch(/\| 4 +\| 200 /);
    });

    it('tabulates PSS by process with the whole tree beside it', () => {
      const [embedded] = memoryTables(longRows);
      expect(embedded.target).toBe('embedded');
      expect(embedded.table.split('\n')[0]).toBe('| scenario    | conns | node | postgres | whole tree |');
      expect(embedded.table).toContain('| long answer | 64    | 165  | 65       | 230        |');
    });

    it('explains them in the report', () => {
      const report = renderReport({
        meta: { ...REPORT_META, long: { chunks: 200, delayMs: 20, duration: 5 } },
        rows: longRows,
        checks: [],
        hop: [],
        soaks: [],
      });
      expect(report).toContain('Long answers: 200 frames 20 ms apart by the mock');
      expect(report).toContain('streams / (frames × delay + 0.1 s)');
      expect(report).toContain('PSS MB by process, embedded (largest over each measurement):');
      expect(report).not.toContain('PSS could not be read');
      const longOnly = renderReport({
        meta: REPORT_META,
        rows: aggregate([longRun('embedded', 64, 15, { pss_fallbacks: 2 })], ['embedded']),
        checks: [],
        hop: [],
        soaks: [],
      });
      expect(longOnly).not.toContain('| scenario | conns | target | req/s');
      expect(longOnly).toContain('| 64      | embedded | 15.0');
      expect(longOnly).toContain('PSS could not be read for some processes');
    });
  });

  it('shows PSS beside RSS and private memory in the soak', () => {
    const table = soakTable({
      target: 'embedded',
      seconds: 60,
      rps: 1,
      errors: 0,
      processes: [
        {
          pid: 7,
          name: 'node',
          start_mb: 200,
          end_mb: 205,
          start_pss_mb: 180,
          end_pss_mb: 184.5,
          start_private_mb: 150,
          end_private_mb: 151,
          change_pct: 0.67,
        },
        {
          pid: 8,
          name: 'postgres',
          start_mb: 30,
          end_mb: 30,
          start_pss_mb: null,
          end_pss_mb: null,
          start_private_mb: 2,
          end_private_mb: 2,
          change_pct: 0,
        },
      ],
    });
    expect(table).toContain('| PSS start MB | PSS end MB |');
    expect(table).toContain(
      '| node     | 7   | 200.0        | 205.0      | 180.0        | 184.5      | 150.0 ',
    );
    expect(table).toContain(
      '| postgres | 8   | 30.0         | 30.0       | –            | –          | 2.0 ',
    );
  });

  it('flags a run during which other processes took much of the machine', () => {
    const noisy = aggregate([{ ...run('direct', 'chat', 1, 100, 1), foreign_pct: 80 }], ['direct']);
    const report = renderReport({
      meta: REPORT_META,
      rows: noisy,
      checks: [],
      hop: [],
      soaks: [],
    });
    expect(report).toContain('**Noisy run**: other processes took a median 80 % of all cores');
  });
});

describe('the mock’s long answer', () => {
  const MOCK = join(__dirname, '..', 'servers', 'mock-upstream.mjs');
  let mock: ReturnType<typeof spawn> | undefined;
  let base = '';

  beforeAll(async () => {
    const port = await freePort();
    mock = spawn(
      process.execPath,
      [MOCK, '--port', String(port), '--long-chunks', '200', '--long-delay-ms', '20'],
      {
        stdio: 'ignore',
      },
    );
    base = `http://127.0.0.1:${port}`;
    await waitUntil('the mock', () => httpAnswers(`${base}/health`), { timeoutMs: 10_000 });
  });
  afterAll(async () => {
    if (!mock || mock.exitCode !== null) return;
    const exited = new Promise((done) => mock!.once('exit', done));
    mock.kill('SIGTERM');
    await exited;
  });

  /** Posts a streamed chat to the mock; resolves with each frame's text and arrival time (ms). */
  const streamFrames = (model: string) =>
    new Promise<{ status: number; frames: { at: number; data: string }[]; started: number }>(
      (resolve, reject) => {
        const body = JSON.stringify({
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'hi' }],
        });
        const started = performance.now();
        const request = http.request(
          `${base}/v1/chat/completions`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false },
          (res) => {
            const frames: { at: number; data: string }[] = [];
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const at = performance.now();
              buffer += chunk;
              let end;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                frames.push({ at, data: buffer.slice(0, end) });
                buffer = buffer.slice(end + 2);
              }
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, frames, started }));
            res.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      },
    );

  it('sends 200 content frames 20 ms apart, then [DONE]: a 4 s answer', async () => {
    const { status, frames, started } = await streamFrames('bench-long');
    expect(status).toBe(200);
    const parsed = frames.slice(0, -1).map((f) => JSON.parse(f.data.replace(/^data: /, '')));
    const content = parsed.filter(
      (f) => typeof f.choices?.[0]?.delta?.content === 'string' && !f.choices[0].delta.role,
    );
    expect(content).toHaveLength(200);
    expect(parsed[0].choices[0].delta.role).toBe('assistant');
    expect(parsed.at(-1).usage.completion_tokens).toBe(200);
    expect(frames.at(-1)!.data).toBe('data: [DONE]');
    // Every frame (role, 200 content, finish, usage, [DONE]) 20 ms after the one before.
    const gaps = frames.slice(1).map((f, i) => f.at - frames[i].at);
    const sorted = [...gaps].sort((a, b) => a - b);
    expect(sorted[sorted.length >> 1]).toBeGreaterThanOrEqual(18);
    expect(sorted[sorted.length >> 1]).toBeLessThan(30);
    expect(sorted[Math.floor(sorted.length * 0.05)]).toBeGreaterThanOrEqual(10);
    const seconds = (frames.at(-1)!.at - started) / 1000;
    expect(seconds).toBeGreaterThanOrEqual(4);
    expect(seconds).toBeLessThan(6);
  }, 15_000);

  it('still sends other models’ streams back to back', async () => {
    const { frames, started } = await streamFrames('gpt-4o-mini');
    expect(frames.filter((f) => f.data.includes('"content"'))).toHaveLength(21);
    expect(frames.at(-1)!.data).toBe('data: [DONE]');
    expect(frames.at(-1)!.at - started).toBeLessThan(1000);
  });
});
