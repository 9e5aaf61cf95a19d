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

  /** The private S3 server, for a test that looks at the objects the apps left. */
  get objectStore(): TestS3 {
    if (!this.s3) throw new Error('The stack has not started');
    return this.s3;
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
      DATABASE_URL: this.db.url,
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

  private async startGateway(label: string): Promise<string> {
    const port = await freePort();
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
