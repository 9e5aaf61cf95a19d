import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { ApiGatewayEnv, createApiGatewayApp } from '@gw/app-api-gateway';
import { BILLING_QUEUE, BillingEnv, BillingModule } from '@gw/app-billing';
import { InProcessBus, startService, type TransportOptions } from '@gw/platform';
import { createTestDatabase, expectEventually, silentLogger, TcpLink, type TestDatabase } from '@gw/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedReadinessChecks } from './embedded-readiness';

/**
 * The embedded mode's readiness as main.ts wires it: the gateway on the in-process bus, with a
 * hosted service's PostgreSQL among its checks. The database is reached through a link the spec can
 * cut, so "unreachable" is a real refused connection, not a stub.
 */
describe('the embedded mode readiness', () => {
  let db: TestDatabase;
  let link: TcpLink;
  let billing: INestMicroservice;
  let gateway: INestApplication;
  let base: string;
  const blobDir = mkdtempSync(join(tmpdir(), 'gw-embedded-ready-'));

  const probe = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    db = await createTestDatabase('embedded_ready');
    const admin = new URL(db.url);
    link = await TcpLink.open(admin.hostname, Number(admin.port || 5432));
    const transport: TransportOptions = { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 2_000 };
    const billingEnv = Object.assign(new BillingEnv(), { DATABASE_URL: link.relay(db.url) });
    billing = await startService(
      BillingModule.register({ env: billingEnv, transport }),
      transport,
      BILLING_QUEUE,
      silentLogger,
    );
    const env = Object.assign(new ApiGatewayEnv(), {
      BLOB_STORE: 'local',
      BLOB_DIR: blobDir,
      JWT_SECRET: 'embedded-readiness-int-spec-secret',
      ADMIN_TOKEN: 'admin-token-of-the-embedded-readiness-spec',
    });
    gateway = await createApiGatewayApp(
      { env, transport, readinessChecks: embeddedReadinessChecks(billing) },
      silentLogger,
    );
    await gateway.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}/api/health`;
  });

  afterAll(async () => {
    await gateway?.close();
    await billing?.close();
    await link?.cut();
    await db?.drop();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('is ready while the services’ PostgreSQL and the blob store answer', async () => {
    await expect(probe('/ready')).resolves.toEqual({
      status: 200,
      body: { status: 'ok', checks: { 'blob-store': 'up', postgres: 'up' } },
    });
  });

  it('answers 503 naming postgres while the database is unreachable, stays live, and is ready again once it is back', async () => {
    await link.cut();
    await expectEventually(async () => {
      const answer = await probe('/ready');
      expect(answer.status).toBe(503);
      expect(answer.body['status']).toBe('unavailable');
      expect(answer.body['checks']).toMatchObject({
        'blob-store': 'up',
        postgres: expect.stringMatching(/^down: /),
      });
    });
    await expect(probe('')).resolves.toEqual({ status: 200, body: { status: 'ok' } });

    await link.restore();
    await expectEventually(async () => expect((await probe('/ready')).status).toBe(200), {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
  }, 30_000);
});
