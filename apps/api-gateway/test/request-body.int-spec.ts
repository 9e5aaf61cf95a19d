import { Controller, type INestApplication, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  apiKeyHash,
  AuthContracts,
  DomainError,
  type ResolvedApiKey,
  type ResolveApiKeyRequest,
} from '@gw/contracts';
import { InProcessBus, startService, type TransportOptions } from '@gw/platform';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';

// Bodies are read only after routing and authentication. The gateway alone (only a stand-in for
// auth's key lookup behind its bus, no storage service) shows it: a client declares a large body,
// sends a little of it and waits for the answer.
const ADMIN_TOKEN = 'admin-token-of-the-request-body-spec';
const API_KEY = 'sk-request-body-spec-key';
/** A key whose lookup takes longer than the body idle timeout, so its body waits unread, complete. */
const SLOW_API_KEY = 'sk-request-body-spec-slow-key';
const SLOW_LOOKUP_MS = 1_500;
const silent = { log: () => undefined, error: () => undefined, warn: () => undefined };
const MB = 1024 * 1024;

@Controller()
class AuthStandIn {
  @MessagePattern(AuthContracts.resolveApiKey.subject)
  async resolve(@Payload() request: ResolveApiKeyRequest): Promise<ResolvedApiKey> {
    if (request.keyHash === apiKeyHash(SLOW_API_KEY))
      await new Promise((resolve) => setTimeout(resolve, SLOW_LOOKUP_MS));
    else if (request.keyHash !== apiKeyHash(API_KEY))
      throw new DomainError('invalid_api_key', 'Invalid API key');
    return {
      kind: 'api_key',
      organizationId: '00000000-0000-4000-8000-000000000001',
      apiKeyId: '00000000-0000-4000-8000-000000000002',
      apiKeyName: 'spec key',
      apiKeyShort: 'sk-r…key',
      userId: null,
    };
  }
}

@Module({ controllers: [AuthStandIn] })
class AuthStandInModule {}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One keep-alive connection spoken to byte by byte, so a test sees which request an answer belongs to. */
class KeepAliveConnection {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private wake: () => void = () => undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<KeepAliveConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new KeepAliveConnection(socket)));
      socket.once('error', reject);
    });
  }

  send(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** The next answer on the connection, or null if none came within `waitMs` or the connection ended. */
  async nextAnswer(waitMs: number): Promise<RawAnswer | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const answer = this.takeAnswer();
      if (answer || this.ended || Date.now() >= deadline) return answer;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, deadline - Date.now());
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private takeAnswer(): RawAnswer | null {
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd === -1) return null;
    const [statusLine, ...lines] = this.buffered.subarray(0, headEnd).toString().split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffered.length < headEnd + 4 + length) return null;
    const body = this.buffered.subarray(headEnd + 4, headEnd + 4 + length).toString();
    this.buffered = this.buffered.subarray(headEnd + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

/** A whole multipart upload of `file` to the storage route, as one HTTP/1.1 request. */
function uploadRequest(file: Buffer): Buffer {
  const boundary = 'request-body-spec-boundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const head =
    'POST /api/v1/storage/files HTTP/1.1\r\nHost: gateway\r\n' +
    `Authorization: Bearer ${API_KEY}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { error: { code: string; message: string } };
}

describe('request bodies at the HTTP edge', () => {
  let auth: INestMicroservice;
  let gateway: INestApplication;
  let port: number;
  const open = new Set<{ destroy(): void }>();

  beforeAll(async () => {
    const env = Object.assign(new ApiGatewayEnv(), {
      JWT_SECRET: 'request-body-spec-secret-0042',
      ADMIN_TOKEN,
      // The tests' clients on 127.0.0.x are both direct clients and, with X-Forwarded-For, proxies.
      TRUSTED_PROXIES: 'loopback',
      HTTP_BODY_IDLE_TIMEOUT_MS: 1_000,
    });
    const transport: TransportOptions = { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 3_000 };
    auth = await startService({ module: AuthStandInModule }, transport, 'auth', silent);
    gateway = await createApiGatewayApp({ env, transport }, silent);
    await gateway.listen(0, '127.0.0.1');
    port = (gateway.getHttpServer().address() as { port: number }).port;
  });

  afterEach(() => {
    for (const request of open) request.destroy();
    open.clear();
  });

  afterAll(async () => {
    await gateway.close();
    await auth.close();
  });

  /**
   * Declares `declared` bytes, sends only `sent` of them and resolves with the answer, or with
   * null if none came within `waitMs` (the server is still waiting for the rest of the body).
   */
  function partialPost(
    path: string,
    options: {
      declared: number;
      sent: number;
      token?: string;
      localAddress?: string;
      forwardedFor?: string;
      contentType?: string;
      waitMs?: number;
    },
  ): Promise<Answer | null> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        localAddress: options.localAddress,
        headers: {
          'content-type': options.contentType ?? 'application/json',
          'content-length': String(options.declared),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
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

  it('refuses a body declared over the route limit with 413 at once, even while every slot is taken', async () => {
    const holding = await Promise.all(
      ['127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.13'].map((localAddress) =>
        partialPost('/api/v1/chat/completions', {
          declared: 2 * MB,
          sent: 1024,
          token: API_KEY,
          localAddress,
          waitMs: 500,
        }),
      ),
    );
    expect(holding).toEqual([null, null, null, null]);
    for (const [path, contentType, limit] of [
      ['/api/v1/chat/completions', 'application/json', '4 MB'],
      ['/api/v1/messages', 'application/json', '4 MB'],
      ['/api/v1/audio/transcriptions', 'application/json', '40 MB'],
      ['/api/v1/audio/transcriptions', 'multipart/form-data; boundary=b', '40 MB'],
    ]) {
      const answer = await partialPost(path, {
        declared: 45 * MB,
        sent: 1024,
        token: API_KEY,
        localAddress: '127.0.0.14',
        contentType,
      });
      expect(answer).toMatchObject({
        status: 413,
        body: {
          error: {
            code: 'payload_too_large',
            type: 'invalid_request_error',
            message: `The request body is too large: this route takes at most ${limit}`,
            param: null,
          },
        },
      });
      expect(answer?.headers['retry-after']).toBeUndefined();
    }
  });

  it('counts large bodies per client address behind a trusted proxy, not per proxy', async () => {
    const fromClient = (forwardedFor: string, waitMs?: number) =>
      partialPost('/api/auth/login', {
        declared: 2 * MB,
        sent: 1024,
        localAddress: '127.0.0.20',
        forwardedFor,
        waitMs,
      });
    const waiting = await Promise.all(Array.from({ length: 8 }, () => fromClient('203.0.113.1', 500)));
    expect(waiting.every((answer) => answer === null)).toBe(true);
    expect(await fromClient('203.0.113.1')).toMatchObject({
      status: 429,
      body: { error: { code: 'rate_limited' } },
    });
    expect(await fromClient('203.0.113.2', 300)).toBeNull();
  });

  it('keeps serving a keep-alive connection after refusing an upload before its end', async () => {
    // Not an image, audio or video (400), then a PNG while no storage service answers (503).
    const files = [
      Buffer.alloc(2 * MB, 'x'),
      Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2 * MB)]),
    ];
    const connection = await KeepAliveConnection.open(port);
    open.add(connection);
    for (const [file, status] of [
      [files[0], 400],
      [files[1], 503],
    ] as const) {
      connection.send(uploadRequest(file));
      const refused = await connection.nextAnswer(5_000);
      expect(refused).toMatchObject({ status });
      expect(refused?.headers.connection).not.toBe('close');
      connection.send('GET /api/health HTTP/1.1\r\nHost: gateway\r\n\r\n');
      expect(await connection.nextAnswer(2_000)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    }
  });

  it("answers Node's own refusals with the error envelope", async () => {
    for (const [request, status, message] of [
      [
        `GET /api/health HTTP/1.1\r\nHost: gateway\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'The request headers are too large',
      ],
      ['NOT HTTP AT ALL\r\n\r\n', 400, 'The request is not valid HTTP/1.1'],
    ] as const) {
      const connection = await KeepAliveConnection.open(port);
      open.add(connection);
      connection.send(request);
      const answer = await connection.nextAnswer(2_000);
      expect(answer).toMatchObject({ status, headers: { connection: 'close' } });
      expect(answer?.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer?.body ?? '')).toEqual({
        error: { message, type: 'invalid_request_error', code: 'invalid_request', param: null },
      });
    }
  });

  /** A chat request with an invalid model field, sent in `pieces` of its body `gapMs` apart (no gap: only the first piece). */
  async function chatInPieces(
    pieces: number,
    gapMs: number | null,
    apiKey = API_KEY,
  ): Promise<KeepAliveConnection> {
    const body = JSON.stringify({ model: 42, padding: 'x'.repeat(pieces * 10) });
    const size = Math.ceil(body.length / pieces);
    const connection = await KeepAliveConnection.open(port);
    open.add(connection);
    connection.send(
      'POST /api/v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n' +
        `Authorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    for (let piece = 0; piece < pieces; piece++) {
      connection.send(body.slice(piece * size, (piece + 1) * size));
      if (gapMs === null) break;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    return connection;
  }

  it('answers a body that stops arriving with 408 and closes its connection after the idle timeout', async () => {
    const connection = await chatInPieces(4, null);
    const startedAt = Date.now();
    const answer = await connection.nextAnswer(5_000);
    expect(answer).toMatchObject({ status: 408, headers: { connection: 'close' } });
    expect(JSON.parse(answer?.body ?? '')).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('stopped arriving') },
    });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
  });

  it('keeps a body that arrives slowly but steadily, past the idle timeout', async () => {
    // Eight pieces 400 ms apart: 2.8 s in all, every gap below the 1 s idle timeout.
    const connection = await chatInPieces(8, 400);
    expect(await connection.nextAnswer(3_000)).toMatchObject({ status: 400 });
  });

  it('keeps the connection of a complete body that waits unread longer than the idle timeout', async () => {
    // The body's last piece arrives after the headers; the key lookup then holds the request unread.
    const connection = await chatInPieces(2, 100, SLOW_API_KEY);
    expect(await connection.nextAnswer(SLOW_LOOKUP_MS + 2_000)).toMatchObject({ status: 400 });
  });
});
