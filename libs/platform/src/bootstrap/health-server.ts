import { createServer, type Server } from 'node:http';
import { scrapeMetrics } from '../observability/app-metrics';
import { listenFailure } from './startup-failure';

/**
 * Liveness, readiness and metrics for services that speak only NATS, so Kubernetes probes and
 * Prometheus have an HTTP endpoint: `/healthz` answers while the process runs, `/readyz` once
 * `isReady` says so, `/metrics` with the process's metrics.
 */
export function startHealthServer(port: number, isReady: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      void scrapeMetrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    const ok = req.url === '/healthz' || (req.url === '/readyz' && isReady());
    res
      .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(listenFailure(err, port, '0.0.0.0', 'HEALTH_PORT')));
    server.listen(port, () => resolve(server));
  });
}
