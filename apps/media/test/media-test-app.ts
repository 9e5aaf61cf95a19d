import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { join } from 'node:path';
import {
  type ApiKeyPrincipal,
  BillingContracts,
  type HistoryDetail,
  MediaContracts,
  type MediaGeneration,
} from '@gw/contracts';
import { createMockUpstreamApp } from '@gw/app-mock-upstream';
import { BILLING_QUEUE, BillingEnv, BillingModule } from '@gw/app-billing';
import { STORAGE_QUEUE, StorageEnv, StorageModule } from '@gw/app-storage';
import { loadEnv, type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { type BlobStore, createBlobStore } from '@gw/platform/blobs';
import { connectTestTransport } from '@gw/platform/testing';
import {
  apiKeyPrincipal,
  createTestDatabase,
  expectEventually,
  silentLogger,
  startTestNats,
  startTestS3,
  type TestDatabase,
  type TestNats,
  type TestS3,
} from '@gw/testing';
import { DataSource } from 'typeorm';
import { MEDIA_QUEUE, MediaEnv, MediaModule } from '../src/media.module';

export const DEMO_CATALOGUE = join(__dirname, '../../../config/catalogue.demo.json');

export interface MediaTestOptions {
  /** How long a video job of mock-upstream takes. */
  mockJobMs?: number;
  media?: Partial<MediaEnv>;
  billing?: Partial<BillingEnv>;
  /** Storage's settings over its defaults (a small quota). */
  storage?: Record<string, string>;
  /** The nats-server's configuration file (a small max_payload). */
  natsConfigFile?: string;
}

/**
 * The media service with everything it talks to, for real: billing (reserve, settle, history) and
 * storage (the result files) on one fresh database, a private nats-server with JetStream, an S3
 * server and mock-upstream's media wire. Media replicas can be added and stopped at will.
 */
export class MediaTestApp {
  readonly replicas: INestMicroservice[] = [];
  /** Every create call mock-upstream received (a provider job each), by path. */
  readonly providerCreates: string[] = [];
  rpc!: RpcClient;
  sql!: DataSource;
  blobs!: BlobStore;
  private readonly others: INestMicroservice[] = [];
  private upstream!: INestApplication;
  private upstreamUrl!: string;
  private closeClient!: () => Promise<void>;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNats,
    readonly s3: TestS3,
    private readonly options: MediaTestOptions,
  ) {}

  static async start(options: MediaTestOptions = {}, replicas = 1): Promise<MediaTestApp> {
    const [db, nats, s3] = await Promise.all([
      createTestDatabase('media'),
      startTestNats({ configFile: options.natsConfigFile }),
      startTestS3(),
    ]);
    const app = new MediaTestApp(db, nats, s3, options);
    app.blobs = createBlobStore(loadEnv(MediaEnv, { ...s3.env }));
    app.upstream = await createMockUpstreamApp(silentLogger, { MOCK_MEDIA_JOB_MS: options.mockJobMs ?? 600 });
    app.upstream.use((request: { method: string; path: string }, _response: unknown, next: () => void) => {
      if (request.method === 'POST') app.providerCreates.push(request.path);
      next();
    });
    await app.upstream.listen(0, '127.0.0.1');
    app.upstreamUrl = `http://127.0.0.1:${(app.upstream.getHttpServer().address() as { port: number }).port}`;
    const billingEnv = Object.assign(
      new BillingEnv(),
      { DATABASE_URL: db.url, NATS_URL: nats.url },
      options.billing ?? {},
    );
    app.others.push(
      await startService(
        BillingModule.register({ env: billingEnv, transport: app.transport }),
        app.transport,
        BILLING_QUEUE,
        silentLogger,
      ),
    );
    const storageEnv = loadEnv(StorageEnv, {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      ...s3.env,
      ...options.storage,
    });
    app.others.push(
      await startService(
        StorageModule.register({ env: storageEnv, transport: app.transport }),
        app.transport,
        STORAGE_QUEUE,
        silentLogger,
      ),
    );
    for (let i = 0; i < replicas; i++) await app.startReplica();
    const connection = await connectTestTransport(app.transport);
    app.rpc = connection.rpc;
    app.closeClient = () => connection.close();
    app.sql = await new DataSource({ type: 'postgres', url: db.url, extra: { max: 2 } }).initialize();
    return app;
  }

  get transport(): TransportOptions {
    return { kind: 'nats', servers: this.nats.url, rpcTimeoutMs: 10_000, blobs: this.blobs };
  }

  /** Another media replica on the same database and broker; `overrides` go over the test settings. */
  async startReplica(overrides: Partial<MediaEnv> = {}): Promise<INestMicroservice> {
    const env = Object.assign(
      loadEnv(MediaEnv, { DATABASE_URL: this.db.url, NATS_URL: this.nats.url, ...this.s3.env }),
      {
        CATALOGUE_FILE: DEMO_CATALOGUE,
        MOCK_UPSTREAM_URL: this.upstreamUrl,
        OUTBOX_RELAY_INTERVAL_MS: 200,
        RESERVATION_RENEW_INTERVAL_MS: 500,
        MEDIA_JOB_LEASE_MS: 1_500,
        MEDIA_IDLE_POLL_MS: 200,
        MEDIA_POLL_FIRST_MS: 100,
        MEDIA_POLL_MAX_MS: 300,
        MEDIA_AWAIT_POLL_MS: 50,
        MEDIA_SETTLE_GRACE_MS: 3_000,
      },
      this.options.media ?? {},
      overrides,
    );
    const replica = await startService(
      MediaModule.register({ env, transport: this.transport, blobs: this.blobs }),
      this.transport,
      MEDIA_QUEUE,
      silentLogger,
    );
    this.replicas.push(replica);
    return replica;
  }

  async stopReplica(replica: INestMicroservice): Promise<void> {
    this.replicas.splice(this.replicas.indexOf(replica), 1);
    await replica.close();
  }

  /** A caller of a fresh organization holding `credits` RUB. */
  async customer(credits: string): Promise<ApiKeyPrincipal> {
    const principal = apiKeyPrincipal();
    await this.rpc.request(BillingContracts.addCredits, {
      organizationId: principal.organizationId,
      amount: credits,
      reason: 'test',
      idempotencyKey: null,
    });
    return principal;
  }

  async balance(organizationId: string): Promise<string> {
    return (await this.rpc.request(BillingContracts.getBalance, { organizationId })).amount;
  }

  /** The generation once it is final (polled with a bound). */
  async final(principal: ApiKeyPrincipal, id: string, timeoutMs = 15_000): Promise<MediaGeneration> {
    return expectEventually(
      async () => {
        const generation = await this.rpc.request(MediaContracts.getGeneration, { principal, id });
        expect(['completed', 'failed', 'cancelled']).toContain(generation.status);
        return generation;
      },
      { timeoutMs },
    );
  }

  /** Billing's history entry, once the outcome has been settled. */
  history(principal: ApiKeyPrincipal, id: string): Promise<HistoryDetail> {
    return expectEventually(() => this.rpc.request(BillingContracts.getHistory, { principal, id }), {
      timeoutMs: 10_000,
    });
  }

  async stop(): Promise<void> {
    await this.sql.destroy();
    await this.closeClient();
    for (const replica of [...this.replicas].reverse()) await replica.close();
    for (const service of [...this.others].reverse()) await service.close();
    await this.upstream.close();
    await this.db.drop();
    await this.nats.stop();
    await this.s3.stop();
  }
}
