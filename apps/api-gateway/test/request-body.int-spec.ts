import { type INestApplication } from '@nestjs/common';
import { InProcessBus } from '@gw/platform';
import { request as httpRequest } from 'node:http';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';

// Bodies are read only after routing and authentication. The gateway alone (no service behind
// its bus) shows it: a client declares a large body, sends a little of it and waits for the answer.
const ADMIN_TOKEN = 'admin-token-of-the-request-body-spec';
const silent = { log: () => undefined, error: () => undefined, warn: () => undefined };
const MB = 1024 * 1024;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error: { code: string; message: string } };
}

describe('request bodies at the HTTP edge', () => {
  let gateway: INestApplication;
  let port: number;
  const open = new Set<{ destroy(): void }>();

  beforeAll(async () => {
    const env = Object.assign(new ApiGatewayEnv(), {
      JWT_SECRET: 'request-body-spec-secret-0042',
      ADMIN_TOKEN,
    });
    gateway = await createApiGatewayApp(
      { env, transport: { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 500 } },
      silent,
    );
    await gateway.listen(0, '127.0.0.1');
    port = (gateway.getHttpServer().address() as { port: number }).port;
  });

  afterEach(() => {
    for (const request of open) request.destroy();
    open.clear();
  });

  afterAll(() => gateway.close());

  /**
   * Declares `declared` bytes, sends only `sent` of them and resolves with the answer, or with
   * null if none came within `waitMs` (the server is still waiting for the rest of the body).
   */
  function partialPost(
    path: string,
    options: { declared: number; sent: number; token?: string; localAddress?: string; waitMs?: number },
  ): Promise<Answer | null> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        localAddress: options.localAddress,
        headers: {
          'content-type': 'application/json',
          'content-length': String(options.declared),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      });
      open.add(request);
      const timer = setTimeout(() => resolve(null), options.waitMs ?? 1_500);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: JSON.parse(Buffer.concat(chunks).toString()) as Answer['body'],
          });
        });
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        // The server may close the connection after answering, while the client still writes.
        if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
      });
      request.write(`{"name":"${' '.repeat(Math.max(0, options.sent - 10))}`);
    });
  }

  it('answers an unknown route at once, without reading the body', async () => {
    const answer = await partialPost('/api/v1/no-such-route', { declared: 39 * MB, sent: 64 * 1024 });
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(answer?.headers.connection).toBe('close');
  });

  it('answers a missing or invalid credential at once, without reading the body', async () => {
    const missing = await partialPost('/api/v1/chat/completions', { declared: 39 * MB, sent: 64 * 1024 });
    expect(missing).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const invalid = await partialPost('/api/admin/organizations', {
      declared: 39 * MB,
      sent: 64 * 1024,
      token: 'not-the-admin-token',
    });
    expect(invalid).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(invalid?.headers.connection).toBe('close');
  });

  it('drains a small unread body, so a client that sends it whole still gets the answer', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo/chat', padding: 'x'.repeat(MB - 100) }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('connection')).not.toBe('close');
  });

  it('refuses a body above 4 MB with 413 where a route takes no files, before reading it', async () => {
    const declared = await partialPost('/api/admin/organizations', {
      declared: 5 * MB,
      sent: 1024,
      token: ADMIN_TOKEN,
    });
    expect(declared).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    const body = JSON.stringify({ name: 'acme', padding: 'x'.repeat(5 * MB) });
    const response = await fetch(`http://127.0.0.1:${port}/api/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(413);
  });

  it('bounds the large bodies one credential sends at once, from any address', async () => {
    const waiting = await Promise.all(
      ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((localAddress) =>
        partialPost('/api/admin/organizations', {
          declared: 2 * MB,
          sent: 1024,
          token: ADMIN_TOKEN,
          localAddress,
          waitMs: 500,
        }),
      ),
    );
    expect(waiting).toEqual([null, null, null, null]);
    const fifth = await partialPost('/api/admin/organizations', {
      declared: 2 * MB,
      sent: 1024,
      token: ADMIN_TOKEN,
      localAddress: '127.0.0.6',
    });
    expect(fifth).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(fifth?.headers['retry-after']).toBe('1');
  });

  it('bounds the large bodies one address sends at once, whatever the credentials', async () => {
    const waiting = await Promise.all(
      Array.from({ length: 8 }, () =>
        partialPost('/api/auth/login', {
          declared: 2 * MB,
          sent: 1024,
          localAddress: '127.0.0.7',
          waitMs: 500,
        }),
      ),
    );
    expect(waiting.every((answer) => answer === null)).toBe(true);
    const ninth = await partialPost('/api/auth/login', {
      declared: 2 * MB,
      sent: 1024,
      localAddress: '127.0.0.7',
    });
    expect(ninth).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    const elsewhere = await partialPost('/api/auth/login', {
      declared: 2 * MB,
      sent: 1024,
      localAddress: '127.0.0.8',
      waitMs: 300,
    });
    expect(elsewhere).toBeNull();
  });
});
