import { createServer, type Server } from 'node:http';
import { scrapeMetrics } from '../observability/app-metrics';
import { type Readiness } from './readiness';
import { listenFailure } from './startup-failure';

/**
 * Liveness, readiness and metrics for services that speak only NATS, so Kubernetes probes and
 * Prometheus have an HTTP endpoint: `/healthz` answers while the process runs (it asks no
 * dependency, so an outage elsewhere never gets the pod restarted), `/readyz` 200 while the
 * service can serve and 503 naming the dependency that is down or saying it shuts down, `/metrics`
 * with the process's metrics.
 */
export function startHealthServer(port: number, readiness: Readiness): Promise<Server> {
  const server = createServer((req, res) => {
    const json = (status: number, body: object) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    switch (req.url) {
      case '/metrics':
        void scrapeMetrics().then(
          ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
          () => res.writeHead(500).end(),
        );
        return;
      case '/healthz':
        return json(200, { status: 'ok' });
      case '/readyz':
        void readiness.report().then(({ ready, body }) => json(ready ? 200 : 503, body));
        return;
      case undefined:
      default:
        return json(404, { status: 'not_found' });
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(listenFailure(err, port, '0.0.0.0', 'HEALTH_PORT')));
    server.listen(port, () => resolve(server));
  });
}
