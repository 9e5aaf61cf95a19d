import {
  createTestDatabase,
  freePort,
  startTestNats,
  startTestS3,
  type TestDatabase,
  type TestNats,
  type TestS3,
  waitForPort,
} from '@gw/testing';
import { type AppProcess, startApp } from './app-process';

const SERVICES = ['auth', 'billing', 'inference', 'media', 'storage'] as const;
/** Seven Node processes starting at once on a busy two-core machine can take over a minute. */
const START_TIMEOUT_MS = 120_000;

export interface DistributedStackOptions {
  /** Label of the private database. */
  database: string;
  adminToken: string;
  jwtSecret: string;
  /** Extra environment by app name (e.g. a short lease for billing), on top of the shared one. */
  env?: Partial<Record<string, Record<string, string>>>;
  /**
   * How the apps reach the private database, given its URL: by default directly; a test that takes
   * the database away from them puts a relay in between and answers the relay's URL.
   */
  relayDatabase?: (url: string) => Promise<string>;
}

/**
 * Every built app as its own process, over a private nats-server and a fresh database on the
 * machine's Postgres: mock-upstream, each service, then the gateway. It is created before
 * beforeAll so that afterAll can stop whatever did start when start() fails half-way.
 */
export class DistributedStack {
  /** The running processes by app name, for a test that kills or inspects one. */
  readonly apps = new Map<string, AppProcess>();
  /** The gateway's base URL, `http://127.0.0.1:<port>/api`. */
  api!: string;
  private nats?: TestNats;
  private db?: TestDatabase;
  private s3?: TestS3;
  /** The port of each gateway by its label, so that a killed one can come back where its clients look. */
  private readonly gatewayPorts = new Map<string, number>();

  /** The private S3 server, for a test that looks at the objects the apps left. */
  get objectStore(): TestS3 {
    if (!this.s3) throw new Error('The stack has not started');
    return this.s3;
  }

  /** The mock provider's base URL, for a test that asks it what it was called with (`GET /calls`). */
  get mockUpstreamUrl(): string {
    if (!this.serviceEnv) throw new Error('The stack has not started');
    return this.serviceEnv['MOCK_UPSTREAM_URL'];
  }

  /** The label (key of `apps`) of the gateway serving `api`, a base URL this stack gave out. */
  gatewayLabel(api: string): string | undefined {
    const port = Number(new URL(api).port);
    return [...this.gatewayPorts].find(([, known]) => known === port)?.[0];
  }

  /** The private database, for a test that watches what a service keeps (billing's holds). */
  get databaseUrl(): string {
    if (!this.db) throw new Error('The stack has not started');
    return this.db.url;
  }
  private serviceEnv!: Record<string, string>;

  constructor(private readonly options: DistributedStackOptions) {}

  async start(): Promise<void> {
    this.nats = await startTestNats();
    this.db = await createTestDatabase(this.options.database);
    // A real S3-compatible server: the storage service and the gateway keep files in it.
    this.s3 = await startTestS3();
    const mockPort = await freePort();
    this.apps.set('mock-upstream', startApp('mock-upstream', { PORT: String(mockPort) }));
    await waitForPort(mockPort, START_TIMEOUT_MS);
    this.serviceEnv = {
      NATS_URL: this.nats.url,
      DATABASE_URL: (await this.options.relayDatabase?.(this.db.url)) ?? this.db.url,
      JWT_SECRET: this.options.jwtSecret,
      MOCK_UPSTREAM_URL: `http://127.0.0.1:${mockPort}`,
      LOG_FORMAT: 'json',
      // A stack stopped after a test that left work running must not wait the production 600 s for it.
      SHUTDOWN_GRACE_MS: '5000',
      ...this.s3.env,
    };
    await Promise.all(SERVICES.map((name) => this.startService(name)));
    this.api = await this.startGateway('api-gateway');
  }

  /**
   * Another gateway replica on the same NATS and services, as a scaled-out deployment runs it;
   * resolves to its base URL. It is stopped with the stack.
   */
  startGatewayReplica(): Promise<string> {
    return this.startGateway(`api-gateway-${this.apps.size}`);
  }

  /**
   * Starts the gateway `label` again on the port it had (after a test killed it), as an orchestrator
   * restarts a container behind the same address; resolves to its base URL once it listens.
   */
  restartGateway(label = 'api-gateway'): Promise<string> {
    return this.startGateway(label, this.gatewayPorts.get(label));
  }

  private async startGateway(label: string, knownPort?: number): Promise<string> {
    const port = knownPort ?? (await freePort());
    this.gatewayPorts.set(label, port);
    const gateway = startApp('api-gateway', {
      ...this.serviceEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: this.options.adminToken,
      ...this.options.env?.['api-gateway'],
    });
    this.apps.set(label, gateway);
    await gateway.waitFor(/Gateway listening/, START_TIMEOUT_MS);
    return `http://127.0.0.1:${port}/api`;
  }

  /** Starts a service (again, after a test stopped it) and resolves once it serves on NATS. */
  async startService(name: string): Promise<void> {
    const app = startApp(name, { ...this.serviceEnv, ...this.options.env?.[name] });
    this.apps.set(name, app);
    await app.waitFor(/serving on NATS/, START_TIMEOUT_MS);
  }

  /**
   * Another replica of a service on the same NATS and database, as a scaled-out deployment runs it
   * (its queue group shares the work); stopped with the stack.
   */
  async startServiceReplica(name: string): Promise<AppProcess> {
    const app = startApp(name, { ...this.serviceEnv, ...this.options.env?.[name] });
    this.apps.set(`${name}-${this.apps.size}`, app);
    await app.waitFor(/serving on NATS/, START_TIMEOUT_MS);
    return app;
  }

  /** Restarts the private S3 server under the running apps, down for `downMs`; its objects stay. */
  async restartObjectStore(downMs: number): Promise<void> {
    await this.s3?.restart(downMs);
  }

  /** Restarts the private nats-server under the running apps, down for `downMs`. */
  async restartNats(downMs: number): Promise<void> {
    await this.nats?.restart(downMs);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.apps.values()].map((app) => app.stop()));
    await this.db?.drop();
    await this.nats?.stop();
    await this.s3?.stop();
  }
}
