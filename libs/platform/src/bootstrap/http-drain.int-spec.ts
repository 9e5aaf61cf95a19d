import {
  Controller,
  Get,
  type INestApplication,
  Injectable,
  Module,
  type OnApplicationShutdown,
  Res,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { freePort, silentLogger } from '@gw/testing';
import type { Response } from 'express';
import { request as httpRequest } from 'node:http';
import { HttpDrain, stopHttpApp } from './http-drain';
import { Readiness } from './readiness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const events: string[] = [];

@Controller()
class SlowRoutes {
  @Get('slow')
  async slow(): Promise<{ done: true }> {
    await sleep(800);
    events.push('slow answered');
    return { done: true };
  }

  /** Ten server-sent events, 100 ms apart, as a streamed chat sends its pieces. */
  @Get('stream')
  async stream(@Res() response: Response): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 1; i <= 10; i++) {
      response.write(`data: ${i}\n\n`);
      await sleep(100);
    }
    response.end('data: [DONE]\n\n');
    events.push('stream ended');
  }

  @Get('endless')
  endless(@Res() response: Response): void {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: 1\n\n');
  }
}

/** Stands for the transports and pools that must outlive the requests. */
@Injectable()
class Transport implements OnApplicationShutdown {
  onApplicationShutdown(): void {
    events.push('transport closed');
  }
}

@Module({ controllers: [SlowRoutes], providers: [Transport] })
class DrainTestModule {}

function get(port: number, path: string): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }),
      );
      response.on('error', reject);
      response.on('aborted', () => reject(new Error('cut')));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('an HTTP app stopping', () => {
  let app: INestApplication;
  let drain: HttpDrain;
  let port: number;

  beforeEach(async () => {
    events.length = 0;
    app = await NestFactory.create(DrainTestModule, { logger: false });
    drain = HttpDrain.install(app);
    port = await freePort();
    await app.listen(port, '127.0.0.1');
  });

  afterEach(() => app.close().catch(() => undefined));

  it('finishes the requests and streams in flight, refuses new connections, then closes its transports', async () => {
    const answer = get(port, '/slow');
    const stream = get(port, '/stream');
    await sleep(150);
    const readiness = new Readiness();
    const stopped = stopHttpApp(app, drain, readiness, silentLogger, 10_000);

    await expect(get(port, '/slow')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(readiness.isShuttingDown).toBe(true);
    await expect(answer).resolves.toMatchObject({ status: 200, body: '{"done":true}' });
    const streamed = await stream;
    expect(streamed.body.match(/^data: /gm)).toHaveLength(11);
    expect(streamed.body.endsWith('data: [DONE]\n\n')).toBe(true);
    await stopped;
    expect(events).toEqual(['slow answered', 'stream ended', 'transport closed']);
  });

  it('cuts what is still running when the bound passes', async () => {
    const endless = get(port, '/endless');
    await sleep(100);
    const started = Date.now();
    await stopHttpApp(app, drain, new Readiness(), silentLogger, 300);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(endless).rejects.toThrow();
    expect(events).toEqual(['transport closed']);
  });
});
