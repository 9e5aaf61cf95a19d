import { expectEventually } from '@gw/testing';
import { Client } from 'pg';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-gateway-faults';
const CONCURRENT = 4;

/**
 * A gateway replica SIGKILLed with requests in flight: the concurrency slots it held die with it
 * within seconds, so the key is not locked out on the replicas that live on, and while it is at
 * its limit a 429 says when a slot frees (seconds), not when a forgotten lease would lapse. (The
 * service behind the gateway dying is inference-faults.e2e-spec.ts.)
 */
describe('gateway faults (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_gateway_faults',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-gateway-faults',
  });
  let survivor: string;

  beforeAll(async () => {
    await stack.start();
    survivor = await stack.startGatewayReplica();
  }, 180_000);

  afterAll(() => stack.stop(), 30_000);

  async function query<Row extends object>(sql: string, params: unknown[]): Promise<Row[]> {
    const db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    try {
      return (await db.query<Row>(sql, params)).rows;
    } finally {
      await db.end();
    }
  }

  it(`frees the ${CONCURRENT} slots of a key held by a replica that was killed within seconds`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    await query(`UPDATE auth.api_keys SET rate_limit_concurrent = $1 WHERE organization_id = $2`, [
      CONCURRENT,
      org.organizationId,
    ]);
    // Longer than the test takes to see the slots free: they are given up by the lease, not by their requests ending.
    const inFlight = Array.from({ length: CONCURRENT }, (_, i) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: {
          model: 'demo/chat',
          stream: i % 2 === 1,
          messages: [{ role: 'user', content: `[[delay:25000]] held by the replica that dies, ${i}` }],
        },
      }).catch((err: unknown) => err),
    );
    // All four must hold their slots before the survivor asks: a poll admitted while they race would take one.
    await expectEventually(
      async () => {
        const [held] = await query<{ count: number }>(
          `SELECT COUNT(*)::int AS "count" FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
          [org.organizationId],
        );
        expect(held.count).toBe(CONCURRENT);
      },
      { timeoutMs: 20_000 },
    );
    const balance = () => http('GET', `${survivor}/v1/balance`, { token: org.apiKey });
    await expectEventually(async () => expect((await balance()).status).toBe(429), { timeoutMs: 20_000 });
    const refused = await balance();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(10);

    const killedAt = Date.now();
    await stack.apps.get('api-gateway')?.stop('SIGKILL');
    await Promise.all(inFlight);
    await expectEventually(async () => expect((await balance()).status).toBe(200), { timeoutMs: 30_000 });
    expect(Date.now() - killedAt).toBeLessThan(15_000);
  }, 90_000);
});
