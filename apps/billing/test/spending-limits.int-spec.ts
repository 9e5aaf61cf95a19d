import { BillingContracts, type SpendingLimit } from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing spending limits per API key over NATS and Postgres', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_limits');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (
    organizationId: string,
    apiKeyId: string | null,
    maxAmount: string,
    minAmount = maxAmount,
    generationId = `gen_${randomUUID()}`,
  ) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId,
      maxAmount,
      minAmount,
    });
  const setLimits = (organizationId: string, apiKeyId: string, limits: SpendingLimit[]) =>
    app.rpc.request(BillingContracts.setKeyLimits, { organizationId, apiKeyId, limits });
  /** Reserves and settles one generation at `cost`, waiting until billing has recorded it. */
  const spend = async (organizationId: string, apiKeyId: string, cost: string) => {
    const generationId = `gen_${randomUUID()}`;
    await reserve(organizationId, apiKeyId, cost, cost, generationId);
    await app.publish(generationFinishedEvent(organizationId, { generationId, apiKeyId, cost }));
    await expectEventually(async () =>
      expect(await app.count(`billing.generations WHERE id = $1`, [generationId])).toBe(1),
    );
  };
  const newKey = async (balance = '1000') => {
    const org = randomUUID();
    await app.credit(org, balance);
    return { org, key: randomUUID() };
  };

  it('lets exactly 10 of 100 parallel reservations through a balance that covers 10, never below zero', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => reserve(org, randomUUID(), '1')),
    );
    const granted = results.filter((r) => r.status === 'fulfilled');
    expect(granted).toHaveLength(10);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect(r.reason).toMatchObject({
        code: 'insufficient_balance',
        status: 402,
      });
    }
    const holds = await app.sql.query(
      `SELECT coalesce(sum(amount), 0) AS held FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
      [org],
    );
    expect(holds[0].held).toBe('10.00000000');
    const reserved = (granted as PromiseFulfilledResult<{ generationId: string }>[]).map(
      (r) => r.value.generationId,
    );
    for (const generationId of reserved)
      await app.publish(generationFinishedEvent(org, { generationId, cost: '1' }));
    // An event with no reservation behind it is charged only from what is free, so it cannot overdraw either.
    await app.publish(generationFinishedEvent(org, { cost: '1' }));
    await expectEventually(async () =>
      expect(await app.count(`billing.generations WHERE organization_id = $1`, [org])).toBe(11),
    );
    await expect(app.balance(org)).resolves.toBe('0.00000000');
    expect(
      await app.count(`billing.ledger_entries WHERE organization_id = $1 AND balance_after < 0`, [org]),
    ).toBe(0);
  });

  it("lets exactly 10 of 100 parallel reservations, spread over two replicas, through a key's day limit that covers 10", async () => {
    // A second replica on the same database and broker: the queue group spreads the reserves over both.
    await app.startService();
    const { org, key } = await newKey();
    await setLimits(org, key, [{ period: 'day', amount: '10' }]);
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => reserve(org, key, '1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(90);
    for (const r of refused) {
      expect(r.reason).toMatchObject({ code: 'spending_limit_exceeded', status: 402 });
      expect(r.reason.message).toContain('day limit');
    }
    const counters = await app.sql.query(
      `SELECT period, held, spent FROM billing.spending_counters WHERE api_key_id = $1 ORDER BY period`,
      [key],
    );
    expect(counters).toHaveLength(4);
    for (const counter of counters)
      expect(counter).toMatchObject({ held: '10.00000000', spent: '0.00000000' });
  });

  it('caps a flexible reservation at what the tightest limit still allows, and refuses below minAmount', async () => {
    const { org, key } = await newKey();
    await setLimits(org, key, [
      { period: 'month', amount: '7' },
      { period: 'week', amount: '3' },
    ]);
    await expect(reserve(org, key, '10', '1')).resolves.toMatchObject({ reservedAmount: '3.00000000' });
    await expect(reserve(org, key, '10', '0')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
    await expect(reserve(org, null, '10', '1')).resolves.toMatchObject({ reservedAmount: '10.00000000' });
    await expect(reserve(org, randomUUID(), '10', '1')).resolves.toMatchObject({
      reservedAmount: '10.00000000',
    });
  });

  it('frees a released hold and counts a settled charge, not the hold', async () => {
    const { org, key } = await newKey();
    await setLimits(org, key, [{ period: 'day', amount: '2' }]);
    const failed = `gen_${randomUUID()}`;
    await reserve(org, key, '2', '2', failed);
    await expect(reserve(org, key, '1')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
    await app.publish(
      generationFinishedEvent(org, { generationId: failed, apiKeyId: key, status: 'failed', cost: '0' }),
    );
    await expectEventually(async () =>
      expect(await reserve(org, key, '2', '0.5')).toMatchObject({ reservedAmount: '2.00000000' }),
    );
    const { org: org2, key: key2 } = await newKey();
    await setLimits(org2, key2, [{ period: 'day', amount: '2' }]);
    const cheap = `gen_${randomUUID()}`;
    await reserve(org2, key2, '2', '2', cheap);
    await app.publish(generationFinishedEvent(org2, { generationId: cheap, apiKeyId: key2, cost: '0.5' }));
    await expectEventually(async () =>
      expect(await reserve(org2, key2, '5', '0.1')).toMatchObject({ reservedAmount: '1.50000000' }),
    );
  });

  it('applies day, week and month limits together, each resetting on its UTC calendar boundary (weeks from Monday)', async () => {
    const { org, key } = await newKey();
    await setLimits(org, key, [
      { period: 'day', amount: '5' },
      { period: 'week', amount: '8' },
      { period: 'month', amount: '12' },
    ]);
    app.clock.set('2026-11-25T12:00:00.000Z'); // a Wednesday
    await spend(org, key, '5');
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({
      code: 'spending_limit_exceeded',
      message: expect.stringContaining('day limit'),
    });
    app.clock.set('2026-11-25T23:59:59.999Z');
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
    app.clock.set('2026-11-26T00:00:00.000Z');
    await spend(org, key, '3');
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({
      code: 'spending_limit_exceeded',
      message: expect.stringContaining('week limit'),
    });
    app.clock.set('2026-11-29T23:59:59.000Z'); // Sunday: still the same week
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({
      message: expect.stringContaining('week limit'),
    });
    app.clock.set('2026-11-30T00:00:00.000Z'); // Monday
    await spend(org, key, '2');
    // 10 spent in November: the new week leaves 6 and the new day 3, but the month only 2.
    await expect(reserve(org, key, '5', '0')).resolves.toMatchObject({ reservedAmount: '2.00000000' });
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({
      message: expect.stringContaining('month limit'),
    });
    app.clock.set('2026-12-01T00:00:00.000Z');
    // A new month and day; the week still counts 2 spent and 2 held.
    await expect(reserve(org, key, '5', '0')).resolves.toMatchObject({ reservedAmount: '4.00000000' });
  });

  it('counts a charge settled after midnight in the window its reservation was made in', async () => {
    const { org, key } = await newKey();
    await setLimits(org, key, [{ period: 'day', amount: '5' }]);
    app.clock.set('2026-11-10T23:59:59.000Z');
    const generationId = `gen_${randomUUID()}`;
    await reserve(org, key, '5', '5', generationId);
    app.clock.set('2026-11-11T00:00:01.000Z');
    await app.publish(generationFinishedEvent(org, { generationId, apiKeyId: key, cost: '4' }));
    await expectEventually(async () =>
      expect(
        await app.sql.query(
          `SELECT window_start, held, spent FROM billing.spending_counters WHERE api_key_id = $1 AND period = 'day'`,
          [key],
        ),
      ).toEqual([
        { window_start: new Date('2026-11-10T00:00:00.000Z'), held: '0.00000000', spent: '4.00000000' },
      ]),
    );
    await expect(reserve(org, key, '5')).resolves.toMatchObject({ reservedAmount: '5.00000000' });
  });

  it('never resets a total limit', async () => {
    const { org, key } = await newKey();
    await setLimits(org, key, [{ period: 'total', amount: '3' }]);
    app.clock.set('2026-01-15T00:00:00.000Z');
    await spend(org, key, '3');
    app.clock.set('2031-06-01T00:00:00.000Z');
    await expect(reserve(org, key, '0.01')).rejects.toMatchObject({
      code: 'spending_limit_exceeded',
      message: expect.stringContaining('never resets'),
    });
  });

  it('replaces the limits of a key, answers them in period order, and removes them with an empty list', async () => {
    const { org, key } = await newKey();
    await expect(
      setLimits(org, key, [
        { period: 'total', amount: '100' },
        { period: 'day', amount: '0.5' },
      ]),
    ).resolves.toEqual({
      apiKeyId: key,
      limits: [
        { period: 'day', amount: '0.50000000' },
        { period: 'total', amount: '100.00000000' },
      ],
    });
    await expect(reserve(org, key, '1')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
    await expect(setLimits(org, key, [])).resolves.toEqual({ apiKeyId: key, limits: [] });
    await expect(reserve(org, key, '1')).resolves.toMatchObject({ reservedAmount: '1.00000000' });
    await setLimits(org, key, [{ period: 'day', amount: '0' }]);
    await expect(reserve(org, key, '0', '0')).rejects.toMatchObject({ code: 'spending_limit_exceeded' });
  });

  it.each([
    [
      'a repeated period',
      [
        { period: 'day', amount: '1' },
        { period: 'day', amount: '2' },
      ],
      'limits[1].period',
    ],
    ['an unknown period', [{ period: 'year', amount: '1' }], 'limits[0].period'],
    ['a negative amount', [{ period: 'day', amount: '-1' }], 'limits[0].amount'],
    ['a number for an amount', [{ period: 'day', amount: 1 }], 'limits[0].amount'],
    ['nine decimals', [{ period: 'day', amount: '0.000000001' }], 'limits[0].amount'],
  ])('refuses %s with invalid_request naming the field', async (_label, limits, param) => {
    const { org, key } = await newKey();
    await expect(setLimits(org, key, limits as SpendingLimit[])).rejects.toMatchObject({
      code: 'invalid_request',
      param,
    });
  });
});
