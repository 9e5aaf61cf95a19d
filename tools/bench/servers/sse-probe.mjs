#!/usr/bin/env node
// Closed-loop streaming client: `-c` streams at once, each one reopened when it ends, for `-d`
// seconds. Measures what wrk cannot: time to first byte (request start -> first body byte) and the
// whole stream, and counts streams that fail: errors (network, non-200, no [DONE]) and stalls (a gap
// of more than --stall-ms between two reads, or still open when the run's grace period is over).
//
//   node sse-probe.mjs --url URL --body-file FILE --headers "A: b|C: d" -c 32 -d 10 [--stall-ms 1000]
//
// Prints one line: PROBEJSON {...} (milliseconds).
import http from 'node:http';
import { readFileSync } from 'node:fs';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const url = new URL(option('--url'));
const body = readFileSync(option('--body-file'));
const streams = Number(option('-c', 32));
const seconds = Number(option('-d', 10));
const stallMs = Number(option('--stall-ms', 1000));
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
for (const header of option('--headers', '').split('|')) {
  const colon = header.indexOf(':');
  if (colon > 0) headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
}
const agent = new http.Agent({ keepAlive: true, maxSockets: streams, maxFreeSockets: streams });

const ttfb = [];
const total = [];
let errors = 0;
let stalls = 0;
let maxGapMs = 0;
const open = new Set();
const started = performance.now();
const deadline = started + seconds * 1000;

function one() {
  return new Promise((resolve) => {
    const begin = performance.now();
    const stream = { last: begin, first: -1 };
    open.add(stream);
    const finish = (ok) => {
      if (!open.delete(stream)) return;
      if (ok) {
        ttfb.push(stream.first - begin);
        total.push(performance.now() - begin);
      }
      resolve();
    };
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent },
      (res) => {
        let tail = '';
        let stalled = false;
        res.on('data', (chunk) => {
          const now = performance.now();
          if (stream.first < 0) stream.first = now;
          else {
            const gap = now - stream.last;
            if (gap > maxGapMs) maxGapMs = gap;
            if (gap > stallMs) stalled = true;
          }
          stream.last = now;
          tail = (tail + chunk.toString('latin1')).slice(-32);
        });
        res.on('end', () => {
          const ok = res.statusCode === 200 && tail.includes('[DONE]');
          if (stalled) stalls++;
          else if (!ok) errors++;
          finish(ok && !stalled);
        });
        res.on('error', () => {
          errors++;
          finish(false);
        });
      },
    );
    request.on('error', () => {
      errors++;
      finish(false);
    });
    request.end(body);
  });
}

async function worker() {
  while (performance.now() < deadline) await one();
}

const percentile = (values, p) => {
  if (!values.length) return null;
  const sorted = Float64Array.from(values).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 1000) / 1000;
};

function report() {
  const elapsed = (performance.now() - started) / 1000;
  const result = {
    requests: ttfb.length,
    duration_s: Number(elapsed.toFixed(3)),
    rps: Number((ttfb.length / elapsed).toFixed(1)),
    errors,
    stalls: stalls + open.size,
    max_gap_ms: Math.round(maxGapMs),
    ttfb_p50_ms: percentile(ttfb, 50),
    ttfb_p99_ms: percentile(ttfb, 99),
    total_p50_ms: percentile(total, 50),
    total_p99_ms: percentile(total, 99),
  };
  process.stdout.write(`PROBEJSON ${JSON.stringify(result)}\n`);
}

// Streams still open this long after the run are stalls; the probe never outlives its bound.
const grace = setTimeout(
  () => {
    report();
    process.exit(0);
  },
  seconds * 1000 + 10_000,
);
await Promise.all(Array.from({ length: streams }, worker));
clearTimeout(grace);
report();
agent.destroy();
