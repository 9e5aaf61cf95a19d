import { BillingContracts } from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing extends running holds over NATS and Postgres', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_hold_extension', { RESERVATION_LEASE_MS: 30_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, amount: string, apiKeyId: string | null = null) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId: `gen_${randomUUID()}`,
      organizationId,
      apiKeyId,
      maxAmount: amount,
      minAmount: amount,
    });
  const extend = (organizationId: string, generationId: string, amount: string) =>
    app.rpc.request(BillingContracts.extendReservation, { organizationId, generationId, amount });
  const held = async (organizationId: string): Promise<Decimal> => {
    const rows: { held: string }[] = await app.sql.query(
      `SELECT coalesce(sum(amount), 0) AS held FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
      [organizationId],
    );
    return new Decimal(rows[0].held);
  };
  const setDayLimit = (organizationId: string, apiKeyId: string, amount: string) =>
    app.rpc.request(BillingContracts.setKeyLimits, {
      organizationId,
      apiKeyId,
      limits: [{ period: 'day', amount }],
    });

  it('grows a hold by what is asked while the balance has it free, and renews its lease', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const { generationId } = await reserve(org, '1');
    const [before] = await app.sql.query(
      `SELECT expires_at FROM billing.reservations WHERE generation_id = $1`,
      [generationId],
    );
    app.clock.advance(5_000);
    await expect(extend(org, generationId, '2.5')).resolves.toEqual({
      generationId,
      reservedAmount: '3.50000000',
      extendedAmount: '2.50000000',
    });
    const [after] = await app.sql.query(
      `SELECT amount, expires_at FROM billing.reservations WHERE generation_id = $1`,
      [generationId],
    );
    expect(after.amount).toBe('3.50000000');
    expect(after.expires_at.getTime()).toBeGreaterThan(before.expires_at.getTime());
    // The balance is the balance: holds are not subtracted from it.
    await expect(app.balance(org)).resolves.toBe('10.00000000');
  });

  it('grants only what is free, then nothing, and the settlement charges up to the grown hold', async () => {
    const org = randomUUID();
    await app.credit(org, '1');
    const { generationId } = await reserve(org, '0.4');
    await reserve(org, '0.5');
    await expect(extend(org, generationId, '1')).resolves.toMatchObject({
      reservedAmount: '0.50000000',
      extendedAmount: '0.10000000',
    });
    await expect(extend(org, generationId, '1')).resolves.toMatchObject({
      reservedAmount: '0.50000000',
      extendedAmount: '0.00000000',
    });
    await app.publish(generationFinishedEvent(org, { generationId, cost: '0.45' }));
    await expectEventually(async () => expect(await app.balance(org)).toBe('0.55000000'));
  });

  it('refuses to extend a hold that is settled, or that never existed, with not_found', async () => {
    const org = randomUUID();
    await app.credit(org, '1');
    const { generationId } = await reserve(org, '0.1');
    await app.publish(generationFinishedEvent(org, { generationId, cost: '0.1' }));
    await expectEventually(async () => expect(await app.balance(org)).toBe('0.90000000'));
    await expect(extend(org, generationId, '0.1')).rejects.toMatchObject({ code: 'not_found' });
    await expect(extend(org, `gen_${randomUUID()}`, '0.1')).rejects.toMatchObject({ code: 'not_found' });
    await expect(extend(randomUUID(), generationId, '0.1')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('never holds more than the balance when 50 extensions race 50 reserves, and settles to the kopeck', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const running = await Promise.all(Array.from({ length: 10 }, () => reserve(org, '0.1')));
    const results = await Promise.allSettled([
      ...Array.from({ length: 50 }, (_, i) => extend(org, running[i % 10].generationId, '0.2')),
      ...Array.from({ length: 50 }, () => reserve(org, '0.2')),
    ]);
    expect(results.every((r) => r.status === 'fulfilled' || r.reason.code === 'insufficient_balance')).toBe(
      true,
    );
    const granted = results
      .slice(0, 50)
      .reduce(
        (sum, r) =>
          sum.plus(r.status === 'fulfilled' ? (r.value as { extendedAmount: string }).extendedAmount : 0),
        new Decimal(0),
      );
    const reserved = results.slice(50).filter((r) => r.status === 'fulfilled').length;
    // Ten holds of 0.1 and then 9 RUB asked by each side: the balance covers every RUB of it and not one more.
    expect(granted.plus(new Decimal('0.2').times(reserved)).plus(1).toFixed(8)).toBe('10.00000000');
    expect((await held(org)).toFixed(8)).toBe('10.00000000');
    // Every running generation is charged its whole grown hold: the balance reaches zero, never below.
    const holds: { generation_id: string; amount: string }[] = await app.sql.query(
      `SELECT generation_id, amount FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
      [org],
    );
    for (const hold of holds)
      await app.publish(
        generationFinishedEvent(org, {
          generationId: hold.generation_id,
          cost: new Decimal(hold.amount).plus(1).toFixed(),
        }),
      );
    await expectEventually(async () => expect(await app.balance(org)).toBe('0.00000000'));
    expect(
      await app.count(`billing.ledger_entries WHERE organization_id = $1 AND balance_after < 0`, [org]),
    ).toBe(0);
  });

  it("grows a hold only as far as the key's spending limit allows, counted in the hold's windows", async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '100');
    await setDayLimit(org, key, '3');
    const { generationId } = await reserve(org, '1', key);
    await reserve(org, '1', key);
    await expect(extend(org, generationId, '5')).resolves.toMatchObject({
      reservedAmount: '2.00000000',
      extendedAmount: '1.00000000',
    });
    await expect(extend(org, generationId, '5')).resolves.toMatchObject({ extendedAmount: '0.00000000' });
    const counters: { period: string; held: string }[] = await app.sql.query(
      `SELECT period, held FROM billing.spending_counters WHERE api_key_id = $1`,
      [key],
    );
    for (const counter of counters) expect(counter.held).toBe('3.00000000');
    // Settlement frees the grown hold from the same counters and counts the charge instead.
    await app.publish(generationFinishedEvent(org, { generationId, apiKeyId: key, cost: '1.5' }));
    await expectEventually(async () => {
      const rows: { held: string; spent: string }[] = await app.sql.query(
        `SELECT held, spent FROM billing.spending_counters WHERE api_key_id = $1 AND period = 'day'`,
        [key],
      );
      expect(rows[0]).toEqual({ held: '1.00000000', spent: '1.50000000' });
    });
  });

  it('keeps concurrent extensions of keys with limits within both the limit and the balance', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '5');
    await setDayLimit(org, key, '4');
    const holds = await Promise.all(Array.from({ length: 4 }, () => reserve(org, '0.5', key)));
    await Promise.all(Array.from({ length: 40 }, (_, i) => extend(org, holds[i % 4].generationId, '0.1')));
    expect((await held(org)).toFixed(8)).toBe('4.00000000');
    const [day] = await app.sql.query(
      `SELECT held FROM billing.spending_counters WHERE api_key_id = $1 AND period = 'day'`,
      [key],
    );
    expect(day.held).toBe('4.00000000');
  });
});
