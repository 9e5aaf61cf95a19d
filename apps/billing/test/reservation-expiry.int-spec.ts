import { BillingContracts, RESERVATION_EXPIRED_ERROR_CODE, type UserPrincipal } from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing releases reservations that are never settled', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_expiry', { RESERVATION_TTL_MS: 300 });
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (
    organizationId: string,
    generationId: string,
    maxAmount: string,
    minAmount: string,
    apiKeyId: string | null = null,
  ) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId,
      maxAmount,
      minAmount,
      model: 'demo/chat',
      requestType: 'chat',
      apiType: 'chat_completions',
      responseMode: 'stream',
    });
  const status = async (generationId: string) =>
    (
      await app.sql.query(`SELECT status FROM billing.reservations WHERE generation_id = $1`, [generationId])
    )[0]?.status;
  const generation = async (generationId: string) =>
    (
      await app.sql.query(
        `SELECT status, list_status, finish_reason, client_cost, error, model FROM billing.generations WHERE id = $1`,
        [generationId],
      )
    )[0];
  const userOf = (organizationId: string): UserPrincipal => ({
    kind: 'user',
    organizationId,
    userId: randomUUID(),
    role: 'member',
  });

  it('frees an expired hold for new requests', async () => {
    const org = randomUUID();
    await app.credit(org, '5');
    const abandoned = `gen_${randomUUID()}`;
    await reserve(org, abandoned, '5', '5');
    await expect(reserve(org, `gen_${randomUUID()}`, '1', '1')).rejects.toMatchObject({
      code: 'insufficient_balance',
    });
    await expectEventually(async () => expect(await status(abandoned)).toBe('released'), {
      timeoutMs: 5_000,
    });
    await expect(reserve(org, `gen_${randomUUID()}`, '5', '5')).resolves.toMatchObject({
      reservedAmount: '5.00000000',
    });
  });

  it('records the generation of an expired hold as failed at zero cost, with RESERVATION_EXPIRED', async () => {
    const org = randomUUID();
    await app.credit(org, '5');
    const abandoned = `gen_${randomUUID()}`;
    await reserve(org, abandoned, '2', '2');
    await expectEventually(async () =>
      expect(await generation(abandoned)).toEqual({
        status: 'failed',
        list_status: 'failed',
        finish_reason: 'error',
        client_cost: '0.00000000',
        model: 'demo/chat',
        error: { code: RESERVATION_EXPIRED_ERROR_CODE, message: expect.any(String) },
      }),
    );
    const page = await app.rpc.request(BillingContracts.listHistory, {
      principal: userOf(org),
      query: { page: 1, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', status: 'failed' },
    });
    expect(page.items).toEqual([
      expect.objectContaining({
        id: abandoned,
        status: 'failed',
        cost: '0.00000000',
        usage: null,
        model: 'demo/chat',
      }),
    ]);
    await expect(app.balance(org)).resolves.toBe('5.00000000');
  });

  it("frees the key's limit counters when its hold expires", async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '50');
    await app.rpc.request(BillingContracts.setKeyLimits, {
      organizationId: org,
      apiKeyId: key,
      limits: [{ period: 'day', amount: '3' }],
    });
    const abandoned = `gen_${randomUUID()}`;
    await reserve(org, abandoned, '3', '3', key);
    await expect(reserve(org, `gen_${randomUUID()}`, '1', '1', key)).rejects.toMatchObject({
      code: 'spending_limit_exceeded',
    });
    await expectEventually(async () => expect(await status(abandoned)).toBe('released'), {
      timeoutMs: 5_000,
    });
    await expect(reserve(org, `gen_${randomUUID()}`, '3', '3', key)).resolves.toMatchObject({
      reservedAmount: '3.00000000',
    });
  });

  it('lets a late event replace the expired entry and charge once, capped at the former hold', async () => {
    const org = randomUUID();
    await app.credit(org, '5');
    const event = generationFinishedEvent(org, { cost: '4' });
    await reserve(org, event.generationId, '1', '1');
    await expectEventually(
      async () => expect(await generation(event.generationId)).toMatchObject({ status: 'failed' }),
      {
        timeoutMs: 5_000,
      },
    );
    await app.publish(event);
    await app.publish(event);
    await expectEventually(async () => expect(await status(event.generationId)).toBe('settled'));
    await expectEventually(async () =>
      expect(await generation(event.generationId)).toMatchObject({
        status: 'completed',
        client_cost: '1.00000000',
        error: null,
      }),
    );
    // A third delivery after the replacement is a duplicate like any other.
    await app.publish(event);
    const sentinel = generationFinishedEvent(org, { cost: '0' });
    await app.publish(sentinel);
    await expectEventually(async () => expect(await generation(sentinel.generationId)).toBeDefined());
    await expect(app.balance(org)).resolves.toBe('4.00000000');
    expect(
      await app.count(`billing.ledger_entries WHERE generation_id = $1 AND kind = 'charge'`, [
        event.generationId,
      ]),
    ).toBe(1);
  });

  it('never lets a late charge take the balance below zero once the released money was spent', async () => {
    const org = randomUUID();
    await app.credit(org, '3');
    const late = generationFinishedEvent(org, { cost: '3' });
    await reserve(org, late.generationId, '3', '3');
    await expectEventually(async () => expect(await status(late.generationId)).toBe('released'), {
      timeoutMs: 5_000,
    });
    const other = generationFinishedEvent(org, { cost: '2.5' });
    await reserve(org, other.generationId, '3', '3');
    await app.publish(other);
    await expectEventually(async () => expect(await app.balance(org)).toBe('0.50000000'));
    await app.publish(late);
    await expectEventually(async () =>
      expect(await generation(late.generationId)).toMatchObject({
        status: 'completed',
        client_cost: '0.50000000',
      }),
    );
    await expect(app.balance(org)).resolves.toBe('0.00000000');
  });
});
