import { type INestApplication } from '@nestjs/common';
import {
  expectEventually,
  silentLogger,
  startTestNats,
  startTestS3,
  TcpLink,
  type TestNats,
  type TestS3,
} from '@gw/testing';
import { ApiGatewayEnv, createApiGatewayApp } from '../api-gateway.module';

describe('the gateway health', () => {
  let nats: TestNats;
  let s3: TestS3;
  let natsLink: TcpLink;
  let s3Link: TcpLink;
  let gateway: INestApplication;
  let base: string;

  const probe = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    [nats, s3] = await Promise.all([startTestNats(), startTestS3()]);
    natsLink = await TcpLink.open('127.0.0.1', Number(new URL(nats.url).port));
    s3Link = await TcpLink.open('127.0.0.1', Number(new URL(s3.endpoint).port));
    const env = Object.assign(new ApiGatewayEnv(), {
      ...s3.env,
      S3_ENDPOINT: s3Link.relay(s3.endpoint),
      NATS_URL: natsLink.relay(nats.url),
      JWT_SECRET: 'gateway-health-int-spec-secret',
      ADMIN_TOKEN: 'admin-token-of-the-health-spec',
    });
    gateway = await createApiGatewayApp(
      { env, transport: { kind: 'nats', servers: env.NATS_URL, rpcTimeoutMs: 2_000 } },
      silentLogger,
    );
    await gateway.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}/api/health`;
  });

  afterAll(async () => {
    await gateway?.close();
    await Promise.all([natsLink?.cut(), s3Link?.cut()]);
    await Promise.all([nats?.stop(), s3?.stop()]);
  });

  it('is ready while NATS and the blob store answer', async () => {
    await expect(probe('/ready')).resolves.toEqual({
      status: 200,
      body: { status: 'ok', checks: { nats: 'up', 'blob-store': 'up' } },
    });
  });

  it.each<[string, () => TcpLink]>([
    ['nats', () => natsLink],
    ['blob-store', () => s3Link],
  ])(
    'answers 503 naming %s while it is unreachable, stays live, and is ready again once it is back',
    async (name, link) => {
      await link().cut();
      await expectEventually(async () => {
        const answer = await probe('/ready');
        expect(answer.status).toBe(503);
        expect(answer.body['status']).toBe('unavailable');
        expect((answer.body['checks'] as Record<string, string>)[name]).toMatch(/^down: /);
      });
      await expect(probe('')).resolves.toEqual({ status: 200, body: { status: 'ok' } });

      await link().restore();
      await expectEventually(async () => expect((await probe('/ready')).status).toBe(200), {
        timeoutMs: 15_000,
        intervalMs: 200,
      });
    },
    30_000,
  );
});
