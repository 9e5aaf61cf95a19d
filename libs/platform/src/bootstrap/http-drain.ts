import { type INestApplication, type LoggerService } from '@nestjs/common';
import { type Server, type ServerResponse } from 'node:http';
import { type Readiness } from './readiness';
import { WorkInFlight } from './work-in-flight';

/**
 * The requests an HTTP app is serving, so that it can stop without cutting them: install on the app
 * before it listens, `drain` on SIGTERM.
 */
export class HttpDrain {
  private readonly work = new WorkInFlight();
  private readonly open = new Set<ServerResponse>();
  private draining = false;

  private constructor(private readonly server: Server) {
    server.on('request', (_request, response: ServerResponse) => {
      const finished = this.work.begin();
      this.open.add(response);
      // A keep-alive client learns from this answer that the connection ends with it.
      if (this.draining) response.setHeader('connection', 'close');
      response.once('close', () => {
        this.open.delete(response);
        finished();
      });
    });
  }

  static install(app: INestApplication): HttpDrain {
    return new HttpDrain(app.getHttpServer() as Server);
  }

  /**
   * Stops listening, lets the requests in flight (streams included) finish for at most `graceMs`,
   * closes every connection and resolves with the number of requests it had to cut.
   */
  async drain(graceMs: number): Promise<number> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const response of this.open) if (!response.headersSent) response.setHeader('connection', 'close');
    this.server.closeIdleConnections();
    const cut = (await this.work.idle(graceMs)) ? 0 : this.work.size;
    this.server.closeAllConnections();
    await closed;
    return cut;
  }
}

/**
 * Stops an HTTP app that also speaks NATS without cutting work: readiness fails, no new connection
 * is taken, the requests in flight finish (`graceMs` at most), then Nest closes the app, whose
 * transports drain NATS before the hooks close the rest.
 */
export async function stopHttpApp(
  app: INestApplication,
  drain: HttpDrain,
  readiness: Readiness,
  logger: LoggerService,
  graceMs: number,
): Promise<void> {
  readiness.shutDown();
  logger.log(`Finishing the requests in flight (at most ${graceMs} ms), then stopping`);
  const cut = await drain.drain(graceMs);
  if (cut > 0) logger.warn?.(`${cut} requests still running after ${graceMs} ms were cut`);
  await app.close();
}
