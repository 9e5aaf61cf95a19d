import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { join } from 'node:path';
import { BillingEvents, type GenerationFinishedEvent, type ReserveCreditRequest } from '@gw/contracts';
import { type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  expectEventually,
  silentLogger,
  standInBilling,
  startTestNats,
  startTestS3,
  type TestDatabase,
  type TestNats,
  type TestS3,
} from '@gw/testing';
import { type BlobStore, createBlobStore, transientBlobKey } from '@gw/platform/blobs';
import { Readable } from 'node:stream';
import { createMockUpstreamApp } from '@gw/app-mock-upstream';
import { INFERENCE_QUEUE, InferenceEnv, InferenceModule } from '../src/inference.module';

export const DEMO_CATALOGUE = join(__dirname, '../../../config/catalogue.demo.json');

/**
 * The real inference service on a private nats-server and a fresh database, calling mock-upstream on
 * a free port and a stand-in billing, plus what a test needs to drive it from outside: an RpcClient,
 * the reservations billing was asked for and the generation events it would have settled.
 */
export class InferenceTestApp {
  /** Every reservation the stand-in billing received, in order. */
  readonly reserveRequests: ReserveCreditRequest[] = [];
  /** The finished-generation events published so far, by generation id. */
  readonly events = new Map<string, GenerationFinishedEvent>();
  private readonly services: INestMicroservice[] = [];
  rpc!: RpcClient;
  /** The store the service reads staged audio from (s3rver), as the gateway writes it. */
  blobs!: BlobStore;
  private upstream!: INestApplication;
  private closeClient!: () => Promise<void>;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNats,
    readonly s3: TestS3,
  ) {}

  /** `replicas` inference services join the queue group; `envOverrides` go over the test defaults. */
  static async start(envOverrides: Partial<InferenceEnv>, replicas = 1): Promise<InferenceTestApp> {
    const [db, nats, s3] = await Promise.all([
      createTestDatabase('inference'),
      startTestNats(),
      startTestS3(),
    ]);
    const app = new InferenceTestApp(db, nats, s3);
    app.upstream = await createMockUpstreamApp(silentLogger);
    await app.upstream.listen(0, '127.0.0.1');
    const address = app.upstream.getHttpServer().address() as { port: number };
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    app.services.push(
      await startService(standInBilling(app.reserveRequests), transport, 'billing', silentLogger),
    );
    const env = Object.assign(
      new InferenceEnv(),
      {
        DATABASE_URL: db.url,
        MOCK_UPSTREAM_URL: `http://127.0.0.1:${address.port}`,
        CATALOGUE_FILE: DEMO_CATALOGUE,
        OUTBOX_RELAY_INTERVAL_MS: 500,
        ...s3.env,
      },
      envOverrides,
    );
    for (let i = 0; i < replicas; i++) {
      app.services.push(
        await startService(
          InferenceModule.register({ env, transport }),
          transport,
          INFERENCE_QUEUE,
          silentLogger,
        ),
      );
    }
    app.blobs = createBlobStore(env);
    const connection = await connectTestTransport(transport);
    app.rpc = connection.rpc;
    await connection.events.subscribe(BillingEvents.generationFinished, 'test-billing', async (event) => {
      app.events.set(event.generationId, event);
    });
    app.closeClient = () => connection.close();
    return app;
  }

  /** Waits for the finished event of a generation; the outbox publishes it after the answer. */
  eventOf(generationId: string): Promise<GenerationFinishedEvent> {
    return expectEventually(() => {
      const event = this.events.get(generationId);
      expect(event).toBeDefined();
      return event as GenerationFinishedEvent;
    });
  }

  /** Stages bytes as the gateway does before a transcription; answers the object's key. */
  async stage(bytes: Buffer, contentType = 'audio/wav'): Promise<string> {
    const key = transientBlobKey();
    await this.blobs.put(key, Readable.from([bytes]), contentType);
    return key;
  }

  async stop(): Promise<void> {
    await this.closeClient();
    // The inference replicas first, in reverse, then the billing they call.
    for (const service of [...this.services].reverse()) await service.close();
    await this.upstream.close();
    await this.db.drop();
    await this.nats.stop();
    await this.s3.stop();
  }
}
