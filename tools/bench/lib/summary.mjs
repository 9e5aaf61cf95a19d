// From runs to the report (pure, so the unit test covers it): medians over repetitions, the added
// latency over the mock itself, the issue's targets checked, Markdown tables.

const SCENARIO_ORDER = ['chat', 'stream', 'embed', 'ttfb', 'long'];
export const SCENARIO_LABEL = {
  chat: 'chat',
  stream: 'stream (whole)',
  embed: 'embeddings',
  ttfb: 'stream TTFB',
  long: 'long answer',
};

/** Seconds the client waits beyond the mock's own pacing for a long answer (connection, gateway, [DONE]). */
export const LONG_SLACK_S = 0.1;

/**
 * Long answers per second that `streams` concurrent clients would complete if the target added
 * nothing: each answer lasts `chunks` × `delayMs` at the mock, plus a little slack. A run's "pace"
 * is its streams/s over this: 1 keeps up with the model, 0.5 makes every answer last twice as long.
 */
export function idealStreamsPerSecond(streams, chunks, delayMs) {
  return streams / ((chunks * delayMs) / 1000 + LONG_SLACK_S);
}

export function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * One row per scenario, connection count and target: medians of the repetitions, errors and stalls
 * summed. `added_p50_ms` is the row's p50 minus the direct target's (the mock alone) in the same
 * scenario and connection count; `vs_raw` its req/s over the raw Node proxy's.
 */
export function aggregate(runs, targetOrder) {
  const groups = new Map();
  for (const run of runs) {
    const key = `${run.scenario}|${run.connections}|${run.target}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(run);
  }
  const rows = [...groups.values()].map((group) => {
    const ok = group.filter((run) => !run.failed);
    const m = (field) => median(ok.map((run) => run[field]));
    const componentNames = [...new Set(ok.flatMap((run) => Object.keys(run.components_ms_per_req ?? {})))];
    return {
      scenario: group[0].scenario,
      connections: group[0].connections,
      target: group[0].target,
      reps: ok.length,
      failed: group.length - ok.length,
      rps: m('rps'),
      p50_ms: m('p50_ms'),
      p99_ms: m('p99_ms'),
      total_p50_ms: m('total_p50_ms'),
      pace: m('pace'),
      cpu_ms_per_req: m('cpu_ms_per_req'),
      foreign_pct: m('foreign_pct'),
      rss_max_mb: Math.max(0, ...ok.map((run) => run.rss_max_mb ?? 0)),
      pss_max_mb: ok.some((run) => typeof run.pss_max_mb === 'number')
        ? Math.max(...ok.map((run) => run.pss_max_mb ?? 0))
        : null,
      pss_fallbacks: Math.max(0, ...ok.map((run) => run.pss_fallbacks ?? 0)),
      components_pss_mb: maxByName(ok.map((run) => run.components_pss_mb)),
      errors: group.reduce((sum, run) => sum + (run.errors ?? 0), 0),
      stalls: group.reduce((sum, run) => sum + (run.stalls ?? 0), 0),
      components_ms_per_req: componentNames.length
        ? Object.fromEntries(
            componentNames.map((name) => [
              name,
              median(ok.map((run) => run.components_ms_per_req?.[name] ?? null)),
            ]),
          )
        : null,
    };
  });
  const find = (row, target) =>
    rows.find((r) => r.scenario === row.scenario && r.connections === row.connections && r.target === target);
  for (const row of rows) {
    const direct = find(row, 'direct');
    const raw = find(row, 'raw');
    row.added_p50_ms =
      direct && row.p50_ms !== null && direct.p50_ms !== null ? row.p50_ms - direct.p50_ms : null;
    row.vs_raw = raw?.rps && row.rps !== null ? row.rps / raw.rps : null;
  }
  const targetRank = (target) => {
    const at = targetOrder.indexOf(target);
    return at < 0 ? targetOrder.length : at;
  };
  return rows.sort(
    (a, b) =>
      SCENARIO_ORDER.indexOf(a.scenario) - SCENARIO_ORDER.indexOf(b.scenario) ||
      a.connections - b.connections ||
      targetRank(a.target) - targetRank(b.target),
  );
}

/** The largest value of each name over the given `{ name: number }` objects, or null when there are none. */
function maxByName(objects) {
  const out = {};
  for (const object of objects)
    for (const [name, value] of Object.entries(object ?? {}))
      if (typeof value === 'number') out[name] = Math.max(out[name] ?? 0, value);
  return Object.keys(out).length ? out : null;
}

const verdict = (value, pass) => (value === null || value === undefined ? 'n/a' : pass ? 'yes' : 'no');

/** Private memory changes up to this many MB count as flat whatever their percentage. */
const SOAK_NOISE_MB = 2;

/**
 * The issue's targets that these rows can show, per gateway mode. `soaks` are the soak results;
 * Portkey figures come from a `portkey` target (--portkey). Each check: target, what, goal, value,
 * met ('yes' | 'no' | 'n/a' when the run did not measure it).
 */
export function checkTargets(rows, gatewayTargets, soaks = []) {
  const row = (scenario, connections, target) =>
    rows.find((r) => r.scenario === scenario && r.connections === connections && r.target === target);
  const ms = (x) => (x === null || x === undefined ? null : `${formatMs(x)} ms`);
  const checks = [];
  for (const target of gatewayTargets) {
    const chat1 = row('chat', 1, target);
    checks.push({
      target,
      what: 'added p50, chat, 1 connection',
      goal: '≤ 1 ms',
      value: ms(chat1?.added_p50_ms),
      met: verdict(chat1?.added_p50_ms, chat1?.added_p50_ms <= 1),
    });
    const ttfb32 = row('ttfb', 32, target);
    checks.push({
      target,
      what: 'added TTFB p50, 32 streams',
      goal: '≤ 1 ms',
      value: ms(ttfb32?.added_p50_ms),
      met: verdict(ttfb32?.added_p50_ms, ttfb32?.added_p50_ms <= 1),
    });
    const ttfb256 = row('ttfb', 256, target);
    const failures = ttfb256 ? ttfb256.errors + ttfb256.stalls + ttfb256.failed : null;
    checks.push({
      target,
      what: '256 streams',
      goal: 'no stall, no error',
      value: ttfb256 ? `${ttfb256.stalls} stalls, ${ttfb256.errors} errors` : null,
      met: verdict(failures, failures === 0),
    });
    if (target === 'embedded') {
      const ours = row('chat', 32, target);
      const portkey = row('chat', 32, 'portkey');
      const rpsRatio = ours?.rps && portkey?.rps ? ours.rps / portkey.rps : null;
      const cpuRatio =
        ours?.cpu_ms_per_req && portkey?.cpu_ms_per_req ? ours.cpu_ms_per_req / portkey.cpu_ms_per_req : null;
      checks.push({
        target,
        what: 'req/s over Portkey, chat, 32 connections',
        goal: '≥ 2×',
        value: rpsRatio === null ? null : `${rpsRatio.toFixed(2)}×`,
        met: verdict(rpsRatio, rpsRatio >= 2),
      });
      checks.push({
        target,
        what: 'CPU per request over Portkey, chat, 32 connections',
        goal: '≤ 0.5×',
        value: cpuRatio === null ? null : `${cpuRatio.toFixed(2)}×`,
        met: verdict(cpuRatio, cpuRatio <= 0.5),
      });
    }
    const soak = soaks.find((s) => s.target === target);
    // A change of a megabyte or two is a small process warming up (a PostgreSQL backend's private
    // memory is 1–3 MB), not growth: percentages are judged on the processes that moved more.
    const moved = soak?.processes.filter(
      (p) => Math.abs(p.end_private_mb - p.start_private_mb) > SOAK_NOISE_MB,
    );
    const worst = moved ? Math.max(0, ...moved.map((p) => Math.abs(p.change_pct))) : null;
    checks.push({
      target,
      what: 'private memory of every process over the soak',
      goal: `within ±10 % (or ${SOAK_NOISE_MB} MB)`,
      value: worst === null ? null : `worst ${worst.toFixed(1)} %`,
      met: verdict(worst, worst <= 10),
    });
  }
  return checks;
}

/** What the NATS hop costs: distributed minus embedded, and the nats-server's own CPU. */
export function natsHop(rows) {
  const pick = (scenario, connections, target) =>
    rows.find((r) => r.scenario === scenario && r.connections === connections && r.target === target);
  const lines = [];
  const connectionCounts = [...new Set(rows.filter((r) => r.scenario === 'chat').map((r) => r.connections))];
  for (const connections of connectionCounts) {
    const embedded = pick('chat', connections, 'embedded');
    const distributed = pick('chat', connections, 'distributed');
    if (!embedded || !distributed || embedded.p50_ms === null || distributed.p50_ms === null) continue;
    const nats = distributed.components_ms_per_req?.['nats-server'];
    lines.push({
      connections,
      added_p50_ms: distributed.p50_ms - embedded.p50_ms,
      added_cpu_ms_per_req:
        distributed.cpu_ms_per_req !== null && embedded.cpu_ms_per_req !== null
          ? distributed.cpu_ms_per_req - embedded.cpu_ms_per_req
          : null,
      nats_server_cpu_ms_per_req: nats ?? null,
      rps_ratio: embedded.rps ? distributed.rps / embedded.rps : null,
    });
  }
  return lines;
}

export function formatMs(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const abs = Math.abs(x);
  return x.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 2);
}
export const formatRps = (x) => (x === null || x === undefined ? '–' : Math.round(x).toLocaleString('en-US'));
const formatRatio = (x) => (x === null || x === undefined ? '–' : `${x.toFixed(2)}×`);
const formatPct = (x) => (x === null || x === undefined ? '–' : x.toFixed(0));
export const formatMb = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(0));

/** A Markdown table with padded columns, readable as printed in a terminal. */
export function markdownTable(head, body) {
  const cells = [head, ...body].map((row) => row.map((cell) => String(cell)));
  const widths = head.map((_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(cells[0]),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

/** Chat, stream, embeddings and time to first byte; long answers have their own table. */
export function resultsTable(rows) {
  rows = rows.filter((r) => r.scenario !== 'long');
  return markdownTable(
    [
      'scenario',
      'conns',
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      '+p50 ms',
      'CPU ms/req',
      '× raw',
      'err',
      'PSS MB',
      'foreign %',
    ],
    rows.map((r) => [
      SCENARIO_LABEL[r.scenario],
      r.connections,
      r.target,
      formatRps(r.rps),
      formatMs(r.p50_ms),
      formatMs(r.p99_ms),
      r.target === 'direct' ? '' : formatMs(r.added_p50_ms),
      formatMs(r.cpu_ms_per_req),
      r.target === 'raw' ? '' : formatRatio(r.vs_raw),
      r.errors + r.stalls + r.failed,
      formatMb(r.pss_max_mb),
      formatPct(r.foreign_pct),
    ]),
  );
}

/**
 * Long answers (SSE probe, `streams` concurrent streams): streams/s and its pace (over the ideal),
 * time to first byte, the whole answer, CPU per answer, errors and stalls, the tree's PSS.
 */
export function longTable(rows) {
  return markdownTable(
    [
      'streams',
      'target',
      'streams/s',
      'pace',
      'TTFB p50 ms',
      'TTFB p99 ms',
      '+TTFB p50 ms',
      'total p50 ms',
      'CPU ms/answer',
      'err',
      'PSS MB',
      'foreign %',
    ],
    rows
      .filter((r) => r.scenario === 'long')
      .map((r) => [
        r.connections,
        r.target,
        r.rps === null ? '–' : r.rps.toFixed(1),
        r.pace === null || r.pace === undefined ? '–' : r.pace.toFixed(2),
        formatMs(r.p50_ms),
        formatMs(r.p99_ms),
        r.target === 'direct' ? '' : formatMs(r.added_p50_ms),
        formatMs(r.total_p50_ms),
        formatMs(r.cpu_ms_per_req),
        r.errors + r.stalls + r.failed,
        formatMb(r.pss_max_mb),
        formatPct(r.foreign_pct),
      ]),
  );
}

/** PSS by process (the largest over each measurement), in MB, one table per target that reports its processes. */
export function memoryTables(rows) {
  const targets = [...new Set(rows.filter((r) => r.components_pss_mb).map((r) => r.target))];
  return targets.map((target) => {
    const own = rows.filter((r) => r.target === target && r.components_pss_mb);
    const names = [...new Set(own.flatMap((r) => Object.keys(r.components_pss_mb)))];
    return {
      target,
      table: markdownTable(
        ['scenario', 'conns', ...names, 'whole tree'],
        own.map((r) => [
          SCENARIO_LABEL[r.scenario],
          r.connections,
          ...names.map((name) => formatMb(r.components_pss_mb[name])),
          formatMb(r.pss_max_mb),
        ]),
      ),
    };
  });
}

/** CPU per request by process, one table per target that reports its processes. */
export function componentsTables(rows) {
  const targets = [...new Set(rows.filter((r) => r.components_ms_per_req).map((r) => r.target))];
  return targets.map((target) => {
    const own = rows.filter((r) => r.target === target && r.components_ms_per_req);
    const names = [...new Set(own.flatMap((r) => Object.keys(r.components_ms_per_req)))];
    return markdownTable(
      ['scenario', 'conns', ...names],
      own.map((r) => [
        SCENARIO_LABEL[r.scenario],
        r.connections,
        ...names.map((name) => formatMs(r.components_ms_per_req[name])),
      ]),
    );
  });
}

/** Median share of the machine other processes took, above which a run is flagged. */
export const NOISY_FOREIGN_PCT = 25;

export function checksTable(checks) {
  return markdownTable(
    ['target', 'what', 'goal', 'measured', 'met'],
    checks.map((c) => [c.target, c.what, c.goal, c.value ?? '–', c.met]),
  );
}

export function soakTable(soak) {
  return markdownTable(
    [
      'process',
      'pid',
      'RSS start MB',
      'RSS end MB',
      'PSS start MB',
      'PSS end MB',
      'private start MB',
      'private end MB',
      'private change %',
    ],
    soak.processes.map((p) => [
      p.name,
      p.pid,
      p.start_mb.toFixed(1),
      p.end_mb.toFixed(1),
      p.start_pss_mb === null || p.start_pss_mb === undefined ? '–' : p.start_pss_mb.toFixed(1),
      p.end_pss_mb === null || p.end_pss_mb === undefined ? '–' : p.end_pss_mb.toFixed(1),
      p.start_private_mb.toFixed(1),
      p.end_private_mb.toFixed(1),
      p.change_pct.toFixed(1),
    ]),
  );
}

/** The whole report, Markdown; printed as it is and written beside the JSON. */
export function renderReport({ meta, rows, checks, hop, soaks }) {
  const out = [
    `# Gateway benchmark ${meta.date}`,
    '',
    `Commit ${meta.commit}, ${meta.host}, ${meta.cores} cores, Node ${meta.node}, ${meta.wrk}. ${meta.pin}. ` +
      `Rate limits ${meta.rateLimits}. ${meta.replicas > 1 ? `Distributed mode: ${meta.replicas} replicas of the gateway and of each service, the load split over the gateways. ` : ''}` +
      `${meta.duration} s per measurement, ${meta.reps} repetition(s), medians. ` +
      'Mock upstream answers at once.',
    '',
    'p50/p99: whole request (wrk); for "stream TTFB", time to first byte (SSE probe, frames 10 ms apart). ' +
      '+p50: p50 minus the mock\'s own (target "direct"). CPU ms/req: CPU time of the target\'s whole process ' +
      'tree (embedded PostgreSQL, or every service, nats-server and PostgreSQL backends) / requests. ' +
      "err: errors + stalls. PSS MB: the largest proportional set size of the target's whole process tree " +
      'during the measurement (/proc/<pid>/smaps_rollup; shared pages divided among the processes that map ' +
      "them, so PostgreSQL's shared buffers count once). foreign %: CPU other processes took, of all cores.",
    '',
    // A run of long answers only has no request table.
    ...(rows.some((r) => r.scenario !== 'long') ? [resultsTable(rows), ''] : []),
  ];
  if (rows.some((r) => r.scenario === 'long')) {
    const long = meta.long;
    out.push(
      `Long answers: ${long ? `${long.chunks} frames ${long.delayMs} ms apart` : 'frames paced'} by the mock ` +
        `(a model streaming its answer), concurrent streams through the SSE probe` +
        `${long ? `, ${long.duration} s per measurement` : ''}. streams/s: answers completed per second; ` +
        `pace: streams/s over the ideal, streams / (frames × delay + ${LONG_SLACK_S} s); ` +
        'total p50: the whole answer; CPU ms/answer: CPU of the whole process tree per answer completed. ' +
        'An answer that does not end with [DONE], answers non-200, or goes more than 1 s between two reads is an error.',
      '',
      longTable(rows),
      '',
    );
  }
  if (rows.some((r) => r.pss_fallbacks > 0))
    out.push(
      'PSS could not be read for some processes (smaps_rollup unreadable): their RSS counts instead.',
      '',
    );
  const foreign = median(rows.map((r) => r.foreign_pct));
  if (foreign !== null && foreign > NOISY_FOREIGN_PCT)
    out.splice(
      4,
      0,
      `**Noisy run**: other processes took a median ${foreign.toFixed(0)} % of all cores during the measurements; ` +
        'these figures measure a busy machine more than the targets.',
      '',
    );
  const targetsWithProcesses = [...new Set(rows.filter((r) => r.components_ms_per_req).map((r) => r.target))];
  componentsTables(rows).forEach((table, i) =>
    out.push(`CPU ms per request by process, ${targetsWithProcesses[i]}:`, '', table, ''),
  );
  for (const { target, table } of memoryTables(rows))
    out.push(`PSS MB by process, ${target} (largest over each measurement):`, '', table, '');
  if (hop.length) {
    out.push('The NATS hop (distributed minus embedded, chat):', '');
    out.push(
      markdownTable(
        ['conns', '+p50 ms', '+CPU ms/req', 'nats-server CPU ms/req', 'req/s ratio'],
        hop.map((h) => [
          h.connections,
          formatMs(h.added_p50_ms),
          formatMs(h.added_cpu_ms_per_req),
          formatMs(h.nats_server_cpu_ms_per_req),
          formatRatio(h.rps_ratio),
        ]),
      ),
      '',
    );
  }
  for (const soak of soaks) {
    out.push(
      `Soak, ${soak.target}: ${soak.seconds} s of chat at 32 connections, ${formatRps(soak.rps)} req/s, ` +
        `${soak.errors} errors; RSS, PSS and private memory (RssAnon) per process:`,
      '',
      soakTable(soak),
      '',
    );
  }
  out.push("The issue's targets:", '', checksTable(checks), '');
  return out.join('\n');
}
