import { type INestApplication, type INestMicroservice } from '@nestjs/common';
// The test runs the real auth service beside the gateway, as the embedded app composes them.
import { AUTH_QUEUE, AuthEnv, AuthModule } from '@gw/app-auth';
import { startService, type TransportOptions } from '@gw/platform';
import { createTestDatabase, startTestNats, TcpLink, type TestDatabase, type TestNats } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';

const JWT_SECRET = 'gateway-outage-int-spec-secret-42';
const ADMIN_TOKEN = 'admin-token-of-the-outage-int-spec';
const silent = { log: () => undefined, error: () => undefined, warn: () => undefined };

interface Reply {
  status: number;
  retryAfter: string | null;
  body: { error?: { code: string; type: string; message: string } };
}

describe('the gateway when a dependency is down', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let lonelyNats: TestNats;
  // The database behind a relay, so the test can take it away from the service.
  let link: TcpLink;
  let auth: INestMicroservice;
  let gateway: INestApplication;
  let lonelyGateway: INestApplication;

  beforeAll(async () => {
    // A second NATS with nothing behind it: no service answers the requests of a gateway on it.
    [db, nats, lonelyNats] = await Promise.all([
      createTestDatabase('gateway_outage'),
      startTestNats(),
      startTestNats(),
    ]);
    const target = new URL(db.url);
    link = await TcpLink.open(target.hostname, Number(target.port || 5432));
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    const authEnv = Object.assign(new AuthEnv(), {
      DATABASE_URL: link.relay(db.url),
      JWT_SECRET,
      PASSWORD_HASH_COST: 14,
    });
    auth = await startService(
      AuthModule.register({ env: authEnv, transport }),
      transport,
      AUTH_QUEUE,
      silent,
    );
    const gatewayEnv = Object.assign(new ApiGatewayEnv(), { NATS_URL: nats.url, JWT_SECRET, ADMIN_TOKEN });
    gateway = await createApiGatewayApp({ env: gatewayEnv, transport }, silent);
    await gateway.listen(0, '127.0.0.1');
    lonelyGateway = await createApiGatewayApp(
      { env: gatewayEnv, transport: { kind: 'nats', servers: lonelyNats.url, rpcTimeoutMs: 1_000 } },
      silent,
    );
    await lonelyGateway.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await lonelyGateway?.close();
    await gateway?.close();
    await auth?.close();
    await db?.drop();
    await nats?.stop();
    await lonelyNats?.stop();
  });

  async function post(app: INestApplication, path: string, body: unknown, token?: string): Promise<Reply> {
    const port = (app.getHttpServer().address() as { port: number }).port;
    const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Reply['body'],
    };
  }

  it('answers 503 with Retry-After, not 500, while PostgreSQL is unreachable', async () => {
    const email = `ada-${randomUUID()}@example.com`;
    const user = { email, password: 'analytical engine', name: 'Ada' };
    expect((await post(gateway, '/admin/users', user, ADMIN_TOKEN)).status).toBe(201);

    await link.cut();

    for (const attempt of [
      () => post(gateway, '/auth/login', { email, password: 'analytical engine' }),
      () => post(gateway, '/admin/users', { ...user, email: `b-${email}` }, ADMIN_TOKEN),
    ]) {
      const reply = await attempt();
      expect(reply).toMatchObject({
        status: 503,
        retryAfter: '5',
        body: { error: { code: 'service_unavailable', type: 'api_error' } },
      });
      expect(reply.body.error?.message).not.toMatch(/ECONNREFUSED|5432|terminat/i);
    }
  });

  it('answers 503 with Retry-After when no service answers on NATS', async () => {
    const reply = await post(lonelyGateway, '/auth/login', { email: 'a@example.com', password: 'whatever1' });
    expect(reply).toMatchObject({
      status: 503,
      retryAfter: '5',
      body: { error: { code: 'service_unavailable' } },
    });
  });
});
