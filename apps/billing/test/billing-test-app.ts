import { type INestMicroservice } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { BillingContracts, BillingEvents, type GenerationFinishedEvent } from '@gw/contracts';
import {
  JetStreamDurableEvents,
  RpcClient,
  startService,
  TransportModule,
  type TransportOptions,
} from '@gw/platform';
import {
  createTestDatabase,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BILLING_QUEUE, BillingEnv, BillingModule, type Clock } from '../src/billing.module';

/** Runs with the real time until a test pins it with set(); advance() moves it either way. */
export class TestClock implements Clock {
  private pinned: number | null = null;
  private offsetMs = 0;

  now(): Date {
    return new Date(this.pinned ?? Date.now() + this.offsetMs);
  }

  set(at: string | Date): void {
    this.pinned = new Date(at).getTime();
  }

  advance(ms: number): void {
    if (this.pinned !== null) this.pinned += ms;
    else this.offsetMs += ms;
  }
}

/**
 * The real billing service on a private nats-server and a fresh database, plus what a test needs
 * to drive it from outside: an RpcClient, a JetStream publisher and a SQL connection for asserts.
 */
export class BillingTestApp {
  readonly services: INestMicroservice[] = [];
  rpc!: RpcClient;
  publisher!: JetStreamDurableEvents;
  /** Direct SQL for assertions on what billing wrote. */
  sql!: DataSource;
  private closeClient!: () => Promise<void>;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNats,
    private readonly envOverrides: Partial<BillingEnv>,
    readonly clock: TestClock,
  ) {}

  static async start(
    label: string,
    envOverrides: Partial<BillingEnv> = {},
    clock = new TestClock(),
  ): Promise<BillingTestApp> {
    const [db, nats] = await Promise.all([createTestDatabase(label), startTestNats()]);
    const app = new BillingTestApp(db, nats, envOverrides, clock);
    await app.startService();
    const moduleRef = await Test.createTestingModule({
      imports: [TransportModule.forRoot(app.transport)],
    }).compile();
    await moduleRef.init();
    app.rpc = moduleRef.get(RpcClient);
    app.closeClient = () => moduleRef.close();
    app.publisher = new JetStreamDurableEvents(nats.url);
    app.sql = new DataSource({ type: 'postgres', url: db.url, extra: { max: 2 } });
    await app.sql.initialize();
    return app;
  }

  get transport(): TransportOptions {
    return { kind: 'nats', servers: this.nats.url, rpcTimeoutMs: 10_000 };
  }

  /** Another billing replica (or a restarted one) on the same database and broker. */
  async startService(): Promise<INestMicroservice> {
    const env = Object.assign(
      new BillingEnv(),
      { DATABASE_URL: this.db.url, NATS_URL: this.nats.url },
      this.envOverrides,
    );
    const service = await startService(
      BillingModule.register({ env, transport: this.transport, clock: this.clock }),
      this.transport,
      BILLING_QUEUE,
      silentLogger,
    );
    this.services.push(service);
    return service;
  }

  async stopService(service: INestMicroservice): Promise<void> {
    await service.close();
    this.services.splice(this.services.indexOf(service), 1);
  }

  async stop(): Promise<void> {
    await this.sql.destroy();
    await this.publisher.onApplicationShutdown();
    await this.closeClient();
    for (const service of [...this.services]) await this.stopService(service);
    await this.db.drop();
    await this.nats.stop();
  }

  async credit(
    organizationId: string,
    amount: string,
    idempotencyKey: string | null = null,
  ): Promise<string> {
    const { amount: balance } = await this.rpc.request(BillingContracts.addCredits, {
      organizationId,
      amount,
      reason: 'test',
      idempotencyKey,
    });
    return balance;
  }

  async balance(organizationId: string): Promise<string> {
    return (await this.rpc.request(BillingContracts.getBalance, { organizationId })).amount;
  }

  publish(event: GenerationFinishedEvent, messageId = randomUUID()): Promise<void> {
    return this.publisher.publish(BillingEvents.generationFinished, event, messageId);
  }

  async count(sql: string, params: unknown[]): Promise<number> {
    const rows: { n: string }[] = await this.sql.query(`SELECT count(*) AS n FROM ${sql}`, params);
    return Number(rows[0].n);
  }
}
