import { BillingContracts } from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('spending counters of keys without limits', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_limit_counters');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, apiKeyId: string, maxAmount: string, minAmount: string) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId: `gen_${randomUUID()}`,
      organizationId,
      apiKeyId,
      maxAmount,
      minAmount,
    });
  const counterRows = (apiKeyId: string) =>
    app.count(`billing.spending_counters WHERE api_key_id = $1`, [apiKeyId]);

  it('writes none, and a limit set later still counts what its window already holds and spent', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '100');
    await reserve(org, key, '3', '3');
    const settled = await reserve(org, key, '4', '4');
    await app.publish(
      generationFinishedEvent(org, { generationId: settled.generationId, apiKeyId: key, cost: '2' }),
    );
    await expectEventually(async () =>
      expect(await app.count(`billing.generations WHERE id = $1`, [settled.generationId])).toBe(1),
    );
    expect(await counterRows(key)).toBe(0);

    await app.rpc.request(BillingContracts.setKeyLimits, {
      organizationId: org,
      apiKeyId: key,
      limits: [{ period: 'day', amount: '6' }],
    });
    // 3 held + 2 spent of 6: one more is left.
    await expect(reserve(org, key, '2', '2')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
    await expect(reserve(org, key, '5', '0')).resolves.toMatchObject({ reservedAmount: '1.00000000' });
    const day = await app.sql.query(
      `SELECT held, spent FROM billing.spending_counters WHERE api_key_id = $1 AND period = 'day'`,
      [key],
    );
    expect(day).toEqual([{ held: '4.00000000', spent: '2.00000000' }]);
  });
});
