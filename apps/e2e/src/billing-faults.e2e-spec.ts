import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-billing-faults';
const CHATS = 50;

/** Billing killed while chats are in flight: JetStream and the outbox must settle every completed chat exactly once after a restart. */
describe('billing faults (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_billing_faults',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-billing-faults',
    // All the chats are in flight together; the default of 32 per key would refuse the rest with 429.
    env: { 'api-gateway': { RATE_LIMIT_CONCURRENT_PER_KEY: String(CHATS) } },
  });

  beforeAll(() => stack.start(), 120_000);

  afterAll(() => stack.stop());

  it(`settles each of ${CHATS} chats that completed while billing was down exactly once`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const inFlight = Array.from({ length: CHATS }, (_, i) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: {
          model: 'demo/chat',
          messages: [{ role: 'user', content: `[[delay:4000]] settle me once, number ${i}` }],
        },
      }),
    );
    // The reservations are made before the upstream call; the kill lands while the upstream delays.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await stack.apps.get('billing')?.stop('SIGKILL');
    const results = await Promise.all(inFlight);
    expect(results.filter((r) => r.status === 429)).toEqual([]);
    const completed = results.filter((r) => r.status === 200);
    expect(completed.length).toBeGreaterThanOrEqual(CHATS / 2);
    await stack.startService('billing');

    const expectedSpend = completed.reduce(
      (sum, r) => sum.plus(new Decimal(r.body.usage.cost_rub)),
      new Decimal(0),
    );
    const history = await expectEventually(
      async () => {
        const page = await http('GET', `${stack.api}/v1/history/generations?limit=100&status=completed`, {
          token: org.apiKey,
        });
        expect(page.body.meta.total).toBe(completed.length);
        return page.body;
      },
      { timeoutMs: 30_000 },
    );
    const ids = history.items.map((item: { id: string }) => item.id);
    for (const r of completed) expect(ids.filter((id: string) => id === r.body.id)).toHaveLength(1);
    const charged = history.items.reduce(
      (sum: Decimal, item: { cost: string }) => sum.plus(item.cost),
      new Decimal(0),
    );
    expect(charged.toNumber()).toBeCloseTo(expectedSpend.toNumber(), 7);
    const balance = async () =>
      new Decimal((await http('GET', `${stack.api}/v1/balance`, { token: org.apiKey })).body.amount);
    await expectEventually(async () =>
      expect((await balance()).toString()).toBe(new Decimal(100).minus(charged).toString()),
    );

    // Chats that failed (refused while billing was down, or failed upstream) never charged anything.
    const failed = await http('GET', `${stack.api}/v1/history/generations?limit=100&status=failed`, {
      token: org.apiKey,
    });
    expect(failed.body.items.every((item: { cost: string }) => item.cost === '0.00000000')).toBe(true);
  }, 120_000);
});
