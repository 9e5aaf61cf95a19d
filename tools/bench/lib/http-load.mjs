// A closed loop of plain HTTP POSTs from this process (node:http, no load generator to install):
// `connections` workers, each sending its next request once the last one is answered, until
// `seconds` have passed. Meant for endpoints slow enough (milliseconds of work per request) that
// the loop's own cost is small beside the target's; wrk (lib/loadgen.mjs) is for the fast ones.
import http from 'node:http';

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : null;

/**
 * Loads `url` with `body`; a request counts as done when it answers 200 and `accepted(text)` holds,
 * otherwise as an error (the first one's text is kept, to say what went wrong). Resolves with the
 * requests done per second over the whole run (the last requests included), p50 and p99 in ms.
 */
export async function closedLoop({ url, headers = {}, body, connections, seconds, accepted = () => true }) {
  const target = new URL(url);
  const payload = Buffer.from(JSON.stringify(body));
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let errors = 0;
  let firstError = null;
  const fail = (reason) => {
    errors += 1;
    firstError ??= reason;
  };
  const send = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
          timeout: 30_000,
        },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode === 200 && accepted(text)) latencies.push(performance.now() - started);
            else fail(`${response.statusCode}: ${text.slice(0, 300)}`);
            resolve();
          });
          response.on('error', (err) => {
            fail(err.message);
            resolve();
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('no answer in 30 s')));
      request.on('error', (err) => {
        fail(err.message);
        resolve();
      });
      request.end(payload);
    });

  const began = performance.now();
  const deadline = began + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) await send();
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - began) / 1000;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    rps: sorted.length / elapsed,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors,
    firstError,
  };
}
