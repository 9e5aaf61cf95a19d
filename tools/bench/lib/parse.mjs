// Parsing of what the load generators print (pure, so the unit test covers it).

/** The JSON after `prefix` on its line of `output`, or null. */
export function parseResultLine(output, prefix) {
  const line = output.split('\n').find((text) => text.startsWith(`${prefix} `));
  if (!line) return null;
  try {
    return JSON.parse(line.slice(prefix.length + 1));
  } catch {
    return null;
  }
}

/** One wrk run (WRKJSON) in the bench's units: milliseconds, one error count. */
export function fromWrk(raw) {
  return {
    requests: raw.requests,
    rps: raw.rps,
    // wrk reports 0 µs when no request completed
    p50_ms: raw.requests ? raw.lat_p50_us / 1000 : null,
    p99_ms: raw.requests ? raw.lat_p99_us / 1000 : null,
    errors: raw.err_connect + raw.err_read + raw.err_write + raw.err_status + raw.err_timeout,
    stalls: 0,
  };
}

/** One probe run (PROBEJSON): the latencies are those of the first byte; the whole stream beside. */
export function fromProbe(raw) {
  return {
    requests: raw.requests,
    rps: raw.rps,
    p50_ms: raw.ttfb_p50_ms,
    p99_ms: raw.ttfb_p99_ms,
    total_p50_ms: raw.total_p50_ms,
    max_gap_ms: raw.max_gap_ms,
    errors: raw.errors,
    stalls: raw.stalls,
  };
}

/**
 * Results of loads run at once against replicas of one target, as one: requests, throughput, errors
 * and stalls add up; latencies are the slowest replica's (a conservative reading of the whole).
 */
export function combineReplicas(results) {
  const failed = results.find((result) => result.failed);
  if (failed) return failed;
  const max = (field) =>
    results.some((result) => typeof result[field] === 'number')
      ? Math.max(...results.map((result) => result[field] ?? 0))
      : undefined;
  const sum = (field) => results.reduce((total, result) => total + (result[field] ?? 0), 0);
  const combined = {
    ...results[0],
    requests: sum('requests'),
    rps: sum('rps'),
    errors: sum('errors'),
    stalls: sum('stalls'),
  };
  for (const field of ['p50_ms', 'p99_ms', 'total_p50_ms', 'max_gap_ms'])
    if (max(field) !== undefined) combined[field] = max(field);
  return combined;
}

/** `connections` spread over `replicas`, as evenly as whole numbers allow; replicas left without one get none. */
export function splitConnections(connections, replicas) {
  return Array.from(
    { length: replicas },
    (_, i) => Math.floor(connections / replicas) + (i < connections % replicas ? 1 : 0),
  ).filter((share) => share > 0);
}
