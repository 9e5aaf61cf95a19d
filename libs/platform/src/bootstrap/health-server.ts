import { createServer, type Server } from 'node:http';
import { listenFailure } from './startup-failure';

/**
 * Liveness and readiness for services that speak only NATS, so Kubernetes probes have an HTTP
 * endpoint: `/healthz` answers while the process runs, `/readyz` once `isReady` says so.
 */
export function startHealthServer(port: number, isReady: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
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
