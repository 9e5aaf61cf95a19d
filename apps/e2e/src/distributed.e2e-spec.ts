import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { DistributedStack } from './support/distributed-stack';
import { http, seedOrganization, sseData } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

/** Each service its own process, over a real nats-server and the machine's Postgres. */
describe('distributed mode', () => {
  const stack = new DistributedStack({
    database: 'e2e_distributed',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
  });

  beforeAll(() => stack.start(), 120_000);

  afterAll(() => stack.stop());

  const chat = (apiKey: string, content: string, extra: Record<string, unknown> = {}) =>
    http('POST', `${stack.api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', messages: [{ role: 'user', content }], ...extra },
    });

  const balanceOf = async (apiKey: string) =>
    new Decimal((await http('GET', `${stack.api}/v1/balance`, { token: apiKey })).body.amount);

  it('serves a plain and a streamed chat across processes and records them', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const plain = await chat(org.apiKey, 'hello over NATS');
    expect(plain.status).toBe(200);
    expect(plain.body.choices[0].message.content).toContain('hello over NATS');
    const streamed = await chat(org.apiKey, 'streamed over NATS', { stream: true });
    expect(sseData(streamed.text).at(-1)).toBe('[DONE]');
    // History and balance are settled by the same event: once both have caught up they agree.
    await expectEventually(async () => {
      const res = await http('GET', `${stack.api}/v1/history/generations`, { token: org.apiKey });
      expect(res.body.meta.total).toBe(2);
      const charged = res.body.items.reduce(
        (sum: Decimal, item: { cost: string }) => sum.plus(item.cost),
        new Decimal(0),
      );
      expect(charged.greaterThan(0)).toBe(true);
      expect((await balanceOf(org.apiKey)).toString()).toBe(new Decimal('100').minus(charged).toString());
    });
  });

  it('never takes a small balance below zero under parallel chats', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '0.05');
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        chat(org.apiKey, `parallel request number ${i} with a few words`, { max_tokens: 64 }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    expect(statuses).toContain(402);
    const spent = results
      .filter((r) => r.status === 200)
      .reduce((sum, r) => sum.plus(new Decimal(r.body.usage.cost_rub)), new Decimal(0));
    await expectEventually(async () => {
      const balance = await balanceOf(org.apiKey);
      expect(balance.greaterThanOrEqualTo(0)).toBe(true);
      expect(balance.toNumber()).toBeCloseTo(new Decimal('0.05').minus(spent).toNumber(), 7);
    });
    const rejected = results.find((r) => r.status === 402);
    expect(rejected?.body.error.code).toBe('insufficient_balance');
  });

  it('charges every completed chat exactly once when billing is killed and restarted', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const inFlight = Array.from({ length: 6 }, (_, i) =>
      chat(org.apiKey, `[[delay:1500]] survive the crash ${i}`),
    );
    await expectEventually(() => expect(stack.apps.get('mock-upstream')).toBeDefined());
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stack.apps.get('billing')!.stop('SIGKILL');
    const results = await Promise.all(inFlight);
    const completed = results.filter((r) => r.status === 200);
    expect(completed.length).toBeGreaterThan(0);
    await stack.startService('billing');
    const expectedSpend = completed.reduce(
      (sum, r) => sum.plus(new Decimal(r.body.usage.cost_rub)),
      new Decimal(0),
    );
    await expectEventually(
      async () => {
        const history = await http('GET', `${stack.api}/v1/history/generations?limit=100`, {
          token: org.apiKey,
        });
        const ids = history.body.items.map((item: { id: string }) => item.id);
        for (const r of completed) expect(ids.filter((id: string) => id === r.body.id)).toHaveLength(1);
        expect((await balanceOf(org.apiKey)).toNumber()).toBeCloseTo(
          new Decimal(100).minus(expectedSpend).toNumber(),
          7,
        );
      },
      { timeoutMs: 20_000 },
    );
  }, 60_000);
});
