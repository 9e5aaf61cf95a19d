import {
  Controller,
  Inject,
  INestApplication,
  INestMicroservice,
  LoggerService,
  Module,
} from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  BillingContracts,
  BillingEvents,
  DomainError,
  GenerationFinishedEvent,
  ReserveCreditRequest,
  ReserveCreditResponse,
} from '@gw/contracts';
import { DurableEvents, RpcClient, startService, TransportModule, TransportOptions } from '@gw/platform';
import { createTestDatabase, expectEventually, startTestNats, TestDatabase, TestNats } from '@gw/testing';
import { createMockUpstreamApp } from '@gw/app-mock-upstream';
import { INFERENCE_QUEUE, InferenceEnv, InferenceModule } from '../src/inference.module';

const silent: LoggerService = { log: () => undefined, error: () => undefined, warn: () => undefined };
export const DEMO_CATALOGUE = join(__dirname, '../../../config/catalogue.demo.json');
/** The one organization the stand-in billing refuses, for lack of money. */
export const POOR_ORGANIZATION = randomUUID();

const RESERVE_REQUESTS = Symbol('RESERVE_REQUESTS');

/** Billing is not under test here: it reserves whatever is asked, except for one organization without money. */
@Controller()
class ReserveResponder {
  constructor(@Inject(RESERVE_REQUESTS) private readonly requests: ReserveCreditRequest[]) {}

  @MessagePattern(BillingContracts.reserve.subject)
  reserve(@Payload() request: ReserveCreditRequest): ReserveCreditResponse {
    this.requests.push(request);
    if (request.organizationId === POOR_ORGANIZATION)
      throw new DomainError('insufficient_balance', 'Insufficient balance');
    return { generationId: request.generationId, reservedAmount: request.maxAmount };
  }
}

@Module({ controllers: [ReserveResponder] })
class ReserveResponderModule {}

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
  private upstream!: INestApplication;
  private closeClient!: () => Promise<void>;

  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNats,
  ) {}

  /** `replicas` inference services join the queue group; `envOverrides` go over the test defaults. */
  static async start(envOverrides: Partial<InferenceEnv>, replicas = 1): Promise<InferenceTestApp> {
    const [db, nats] = await Promise.all([createTestDatabase('inference'), startTestNats()]);
    const app = new InferenceTestApp(db, nats);
    app.upstream = await createMockUpstreamApp(silent);
    await app.upstream.listen(0, '127.0.0.1');
    const address = app.upstream.getHttpServer().address() as { port: number };
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    const billing = {
      module: ReserveResponderModule,
      providers: [{ provide: RESERVE_REQUESTS, useValue: app.reserveRequests }],
    };
    app.services.push(await startService(billing, transport, 'billing', silent));
    const env = Object.assign(
      new InferenceEnv(),
      {
        DATABASE_URL: db.url,
        MOCK_UPSTREAM_URL: `http://127.0.0.1:${address.port}`,
        CATALOGUE_FILE: DEMO_CATALOGUE,
        OUTBOX_RELAY_INTERVAL_MS: 500,
      },
      envOverrides,
    );
    for (let i = 0; i < replicas; i++) {
      app.services.push(
        await startService(InferenceModule.register({ env, transport }), transport, INFERENCE_QUEUE, silent),
      );
    }
    const moduleRef = await Test.createTestingModule({
      imports: [TransportModule.forRoot(transport)],
    }).compile();
    await moduleRef.init();
    app.rpc = moduleRef.get(RpcClient);
    await moduleRef
      .get(DurableEvents)
      .subscribe(BillingEvents.generationFinished, 'test-billing', async (event) => {
        app.events.set(event.generationId, event);
      });
    app.closeClient = () => moduleRef.close();
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

  async stop(): Promise<void> {
    await this.closeClient();
    // The inference replicas first, in reverse, then the billing they call.
    for (const service of [...this.services].reverse()) await service.close();
    await this.upstream.close();
    await this.db.drop();
    await this.nats.stop();
  }
}
