import { type INestMicroservice } from '@nestjs/common';
import { loadEnv, type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { type BlobStore, createBlobStore } from '@gw/platform/blobs';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  silentLogger,
  startTestNats,
  startTestS3,
  type TestDatabase,
  type TestNats,
  type TestS3,
} from '@gw/testing';
import { DataSource } from 'typeorm';
import { STORAGE_QUEUE, StorageEnv, StorageModule } from '../src/storage.module';

/**
 * The storage service on a database, a nats-server and an S3 server (s3rver) of its own, with an
 * RPC client, the blob store the service writes to, and SQL on its database.
 */
export class StorageTestStand {
  env!: StorageEnv;
  rpc!: RpcClient;
  blobs!: BlobStore;
  sql!: DataSource;
  private service!: INestMicroservice;
  private closeClient!: () => Promise<void>;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNats,
    readonly s3: TestS3,
    private readonly settings: Record<string, string>,
  ) {}

  get transport(): TransportOptions {
    return { kind: 'nats', servers: this.nats.url, rpcTimeoutMs: 5_000 };
  }

  static async start(settings: Record<string, string>): Promise<StorageTestStand> {
    const [db, nats, s3] = await Promise.all([createTestDatabase('storage'), startTestNats(), startTestS3()]);
    const stand = new StorageTestStand(db, nats, s3, settings);
    await stand.startService();
    stand.blobs = createBlobStore(stand.env);
    const connection = await connectTestTransport(stand.transport);
    stand.rpc = connection.rpc;
    stand.closeClient = () => connection.close();
    stand.sql = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    return stand;
  }

  /** The service process dies (no graceful work left to finish is awaited) and a new one starts with `overrides`. */
  async restartService(overrides: Record<string, string>): Promise<void> {
    await this.service.close();
    await this.startService(overrides);
  }

  async stop(): Promise<void> {
    await this.sql.destroy();
    await this.closeClient();
    await this.service.close();
    await Promise.all([this.db.drop(), this.nats.stop(), this.s3.stop()]);
  }

  private async startService(overrides: Record<string, string> = {}): Promise<void> {
    this.env = loadEnv(StorageEnv, {
      DATABASE_URL: this.db.url,
      ...this.s3.env,
      ...this.settings,
      ...overrides,
    });
    this.service = await startService(
      StorageModule.register({ env: this.env, transport: this.transport }),
      this.transport,
      STORAGE_QUEUE,
      silentLogger,
    );
  }
}
