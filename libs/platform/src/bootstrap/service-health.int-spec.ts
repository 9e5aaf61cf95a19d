import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { rpc, stream } from '@gw/contracts';
import {
  createTestDatabase,
  expectEventually,
  freePort,
  silentLogger,
  startTestNats,
  startTestS3,
  TcpLink,
  type TestDatabase,
  type TestNats,
  type TestS3,
  uniqueSuffix,
} from '@gw/testing';
import { Test } from '@nestjs/testing';
import { IsInt, Min } from 'class-validator';
import { type Server } from 'node:http';
import { interval, lastValueFrom, map, take, toArray } from 'rxjs';
import { S3BlobStore } from '../blobs/s3-blob-store';
import { ServiceDatabaseModule } from '../database/service-database.module';
import { HandlesRpc } from '../transport/handles';
import { RpcClient } from '../transport/rpc-client';
import { type TransportOptions } from '../transport/transport-options';
import { TransportModule } from '../transport/transport.module';
import { startHealthServer } from './health-server';
import { Readiness } from './readiness';
import { serviceChecks } from './run-service-main';
import { startService } from './start-service';

const suffix = uniqueSuffix();

class WaitRequest {
  @IsInt()
  @Min(1)
  ms!: number;
}

const Wait = rpc<WaitRequest, { waited: number }>(`test.${suffix}.wait`, WaitRequest);
const Tick = stream<WaitRequest, number>(`test.${suffix}.tick`, WaitRequest);

@Controller()
class SlowHandlers {
  @HandlesRpc(Wait)
  async wait({ ms }: WaitRequest): Promise<{ waited: number }> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { waited: ms };
  }

  /** Ten pieces, `ms` apart. */
  @HandlesRpc(Tick)
  tick({ ms }: WaitRequest) {
    return interval(ms).pipe(
      take(10),
      map((i) => i + 1),
    );
  }
}

describe('a service whose dependencies go away', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let s3: TestS3;
  let postgresLink: TcpLink;
  let natsLink: TcpLink;
  let s3Link: TcpLink;
  let service: INestMicroservice;
  let health: Server;
  let healthUrl: string;
  const readiness = new Readiness();

  const probe = async (path: string) => {
    const response = await fetch(`${healthUrl}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    [db, nats, s3] = await Promise.all([
      createTestDatabase('service_health'),
      startTestNats(),
      startTestS3(),
    ]);
    const dbUrl = new URL(db.url);
    postgresLink = await TcpLink.open(dbUrl.hostname, Number(dbUrl.port || 5432));
    natsLink = await TcpLink.open('127.0.0.1', Number(new URL(nats.url).port));
    s3Link = await TcpLink.open('127.0.0.1', Number(new URL(s3.endpoint).port));
    const port = await freePort();
    health = await startHealthServer(port, readiness);
    healthUrl = `http://127.0.0.1:${port}`;
    const transport: TransportOptions = {
      kind: 'nats',
      servers: natsLink.relay(nats.url),
      rpcTimeoutMs: 5_000,
      drainTimeoutMs: 5_000,
    };
    @Module({
      imports: [
        ServiceDatabaseModule.register({
          url: postgresLink.relay(db.url),
          schema: 'health_test',
          entities: [],
          migrations: [],
        }),
      ],
      controllers: [SlowHandlers],
    })
    class HealthTestModule {}
    service = await startService(
      { module: HealthTestModule },
      transport,
      `health-test-${suffix}`,
      silentLogger,
    );
    const blobs = new S3BlobStore({
      endpoint: s3Link.relay(s3.endpoint),
      region: 'us-east-1',
      bucket: s3.bucket,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    readiness.serve(serviceChecks(service, blobs));
  });

  afterAll(async () => {
    await service?.close().catch(() => undefined);
    health?.close();
    await Promise.all([postgresLink, natsLink, s3Link].map((link) => link?.cut()));
    await Promise.all([db?.drop(), nats?.stop(), s3?.stop()]);
  });

  it('is ready while PostgreSQL, NATS and the blob store answer', async () => {
    await expect(probe('/readyz')).resolves.toEqual({
      status: 200,
      body: { status: 'ok', checks: { postgres: 'up', nats: 'up', 'blob-store': 'up' } },
    });
  });

  it.each<[string, () => TcpLink]>([
    ['postgres', () => postgresLink],
    ['nats', () => natsLink],
    ['blob-store', () => s3Link],
  ])(
    'answers 503 naming %s while it is unreachable, stays alive, and is ready again once it is back',
    async (name, link) => {
      await link().cut();
      const down = await expectEventually(async () => {
        const answer = await probe('/readyz');
        expect(answer.status).toBe(503);
        expect((answer.body['checks'] as Record<string, string>)[name]).toMatch(/^down: /);
        return answer;
      });
      expect(down.body['status']).toBe('unavailable');
      const others = Object.entries(down.body['checks'] as Record<string, string>).filter(
        ([n]) => n !== name,
      );
      expect(others.every(([, state]) => state === 'up')).toBe(true);
      await expect(probe('/healthz')).resolves.toEqual({ status: 200, body: { status: 'ok' } });

      await link().restore();
      await expectEventually(async () => expect((await probe('/readyz')).status).toBe(200), {
        timeoutMs: 15_000,
        intervalMs: 200,
      });
    },
    30_000,
  );

  it('finishes the requests and streams in flight when it closes, then stops taking new ones', async () => {
    const client = await Test.createTestingModule({
      imports: [TransportModule.forRoot({ kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 })],
    }).compile();
    await client.init();
    const rpc = client.get(RpcClient);
    try {
      const answer = rpc.request(Wait, { ms: 1_500 });
      const pieces = lastValueFrom(rpc.stream(Tick, { ms: 150 }).pipe(toArray()));
      // Both are being handled when the service is told to stop.
      await new Promise((resolve) => setTimeout(resolve, 300));
      readiness.shutDown();
      const closed = service.close();

      await expect(probe('/readyz')).resolves.toMatchObject({
        status: 503,
        body: { status: 'shutting_down' },
      });
      await expect(answer).resolves.toEqual({ waited: 1_500 });
      await expect(pieces).resolves.toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      await closed;
      await expect(rpc.request(Wait, { ms: 1 })).rejects.toMatchObject({ code: 'service_unavailable' });
    } finally {
      await client.close();
    }
  }, 30_000);
});
