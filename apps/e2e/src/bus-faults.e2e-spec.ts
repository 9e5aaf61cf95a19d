import { expectEventually } from '@gw/testing';
import { Client } from 'pg';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-bus-faults';
const CHATS = 6;

/**
 * NATS restarted while chats wait on a slow upstream: every client gets an answer (its chat, or
 * a 503 envelope) within seconds of the restart rather than a dropped connection minutes later,
 * and no hold outlives its lease.
 */
describe('bus faults (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_bus_faults',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-bus-faults',
    env: {
      billing: { RESERVATION_LEASE_MS: '3000' },
      inference: { RESERVATION_RENEW_INTERVAL_MS: '1000' },
    },
  });
  let db: Client;

  beforeAll(async () => {
    await stack.start();
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack.stop();
  }, 30_000);

  const heldCount = async (): Promise<number> => {
    const { rows } = await db.query<{ count: number }>(
      `SELECT COUNT(*)::int AS "count" FROM "billing"."reservations" WHERE "status" = 'held'`,
    );
    return rows[0].count;
  };

  it(`answers each of ${CHATS} chats in flight across a NATS restart within seconds`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const inFlight = Array.from({ length: CHATS }, (_, i) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: {
          model: 'demo/chat',
          stream: i % 2 === 1,
          messages: [{ role: 'user', content: `[[delay:4000]] across the restart, number ${i}` }],
        },
      }),
    );
    await expectEventually(async () => expect(await heldCount()).toBe(CHATS), { timeoutMs: 20_000 });

    const restartedAt = Date.now();
    await stack.restartNats(12_000);
    const results = await Promise.all(inFlight);
    const answeredAfterMs = Date.now() - restartedAt;

    expect(answeredAfterMs).toBeLessThan(25_000);
    for (const result of results) {
      if (result.status === 200) continue;
      expect(result.status).toBe(503);
      expect(result.body).toMatchObject({ error: { code: 'service_unavailable' } });
    }
    await expectEventually(async () => expect(await heldCount()).toBe(0), { timeoutMs: 30_000 });
  }, 60_000);
});
