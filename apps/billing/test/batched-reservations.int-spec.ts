import { BillingContracts } from '@gw/contracts';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing reservations in group commits', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_batched_reservations');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, generationId: string) =>
    app.rpc.request(
      BillingContracts.reserve,
      { generationId, organizationId, apiKeyId: null, maxAmount: '1', minAmount: '1' },
      { timeoutMs: 60_000 },
    );

  it('lets exactly the affordable 700 of 2,000 parallel reservations of one organization through, on two replicas, with replays answered alike', async () => {
    const org = randomUUID();
    await app.credit(org, '700');
    const second = await app.startService();
    try {
      const generations = Array.from({ length: 1_800 }, () => `gen_${randomUUID()}`);
      // 200 generations are reserved twice at the same time, as a caller's retry would.
      const requests = [...generations, ...generations.slice(0, 200)];
      const results = await Promise.allSettled(requests.map((generationId) => reserve(org, generationId)));

      const answers = new Map<string, string[]>();
      results.forEach((result, index) => {
        const answer =
          result.status === 'fulfilled'
            ? result.value.reservedAmount
            : (result.reason as { code: string }).code;
        answers.set(requests[index], [...(answers.get(requests[index]) ?? []), answer]);
      });
      const held = [...answers].filter(([, list]) => list[0] === '1.00000000');
      expect(held).toHaveLength(700);
      expect([...answers.values()].flat().filter((a) => a === 'insufficient_balance')).toHaveLength(
        2_000 - 700 - held.filter(([id]) => generations.indexOf(id) < 200).length,
      );
      // A replay answers exactly what the first reserve of its generation answered.
      for (const list of answers.values()) expect(new Set(list).size).toBe(1);

      const rows: { holds: string; total: string; balance: string; commits: string }[] = await app.sql.query(
        `SELECT count(*) AS holds, sum(r.amount) AS total, a.balance,
                count(DISTINCT r.xmin::text) AS commits
           FROM billing.reservations r JOIN billing.accounts a USING (organization_id)
          WHERE r.organization_id = $1 AND r.status = 'held' GROUP BY a.balance`,
        [org],
      );
      expect(rows[0]).toMatchObject({ holds: '700', total: '700.00000000', balance: '700.00000000' });
      // Holds inserted by one transaction share its xmin: the 700 were written in fewer commits.
      expect(Number(rows[0].commits)).toBeLessThan(700);
    } finally {
      await app.stopService(second);
    }
  }, 120_000);
});
