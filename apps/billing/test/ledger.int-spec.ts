import { BillingContracts } from '@gw/contracts';
import { randomUUID } from 'node:crypto';
import { LedgerService } from '../src/ledger/ledger.service';
import { BillingTestApp } from './billing-test-app';

describe('billing ledger over NATS and Postgres: balance, credits, reservations', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_ledger');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (
    organizationId: string,
    maxAmount: string,
    minAmount: string,
    generationId = `gen_${randomUUID()}`,
  ) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId: null,
      maxAmount,
      minAmount,
    });

  it('runs its migrations into its own schema', async () => {
    const rows = await app.sql.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'billing' ORDER BY 1`,
    );
    expect(rows.map((r: { table_name: string }) => r.table_name)).toEqual([
      'accounts',
      'generations',
      'ledger_entries',
      'migrations',
      'models',
      'reservations',
      'spending_counters',
      'spending_limits',
      'undelivered_generations',
    ]);
  });

  it('answers a zero balance, with 8 decimals, for an organization it never saw', async () => {
    await expect(app.balance(randomUUID())).resolves.toBe('0.00000000');
  });

  it('credits an organization and answers the new balance', async () => {
    const org = randomUUID();
    await expect(app.credit(org, '100.00')).resolves.toBe('100.00000000');
    await expect(app.credit(org, '0.00000001')).resolves.toBe('100.00000001');
    await expect(app.balance(org)).resolves.toBe('100.00000001');
  });

  it('credits once per Idempotency-Key and answers the same balance to a retry', async () => {
    const org = randomUUID();
    await expect(app.credit(org, '50', 'topup-1')).resolves.toBe('50.00000000');
    await expect(app.credit(org, '20', 'topup-2')).resolves.toBe('70.00000000');
    await expect(app.credit(org, '50', 'topup-1')).resolves.toBe('50.00000000');
    const retries = await Promise.all(Array.from({ length: 10 }, () => app.credit(org, '5', 'topup-3')));
    expect(new Set(retries)).toEqual(new Set(['75.00000000']));
    await expect(app.balance(org)).resolves.toBe('75.00000000');
    expect(
      await app.count(`billing.ledger_entries WHERE organization_id = $1 AND kind = 'credit'`, [org]),
    ).toBe(3);
  });

  it('refuses a reused Idempotency-Key with another amount, and the same key is still free in another organization', async () => {
    const org = randomUUID();
    await app.credit(org, '10', 'key-a');
    await expect(app.credit(org, '11', 'key-a')).rejects.toMatchObject({ code: 'conflict', status: 409 });
    await expect(app.credit(randomUUID(), '11', 'key-a')).resolves.toBe('11.00000000');
  });

  it.each([['0'], ['-5'], ['1.123456789'], ['1e3'], ['abc']])(
    'refuses the credit amount %p with invalid_request',
    async (amount) => {
      await expect(app.credit(randomUUID(), amount)).rejects.toMatchObject({
        code: 'invalid_request',
        status: 400,
        param: 'amount',
      });
    },
  );

  it('holds min(maxAmount, available) and refuses below minAmount with a clear 402', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    await expect(reserve(org, '4', '1')).resolves.toMatchObject({ reservedAmount: '4.00000000' });
    await expect(reserve(org, '100', '1')).resolves.toMatchObject({ reservedAmount: '6.00000000' });
    const refused = reserve(org, '100', '0.01');
    await expect(refused).rejects.toMatchObject({ code: 'insufficient_balance', status: 402 });
    await expect(refused).rejects.toThrow(/Insufficient balance/);
    // Holds do not change the settled balance.
    await expect(app.balance(org)).resolves.toBe('10.00000000');
  });

  it('refuses when the available amount is below minAmount, naming both', async () => {
    const org = randomUUID();
    await app.credit(org, '2');
    await expect(reserve(org, '5', '3')).rejects.toThrow(
      'Insufficient balance: 2.00000000 RUB available, but this request needs at least 3.00000000 RUB',
    );
  });

  it.each([
    ['chat_completions', 'Top up the balance or lower max_tokens.'],
    ['responses', 'Top up the balance or lower max_output_tokens.'],
    ['embeddings', 'Top up the balance to continue.'],
    ['transcriptions', 'Top up the balance to continue.'],
  ])('tells a %s request the remedy its API offers', async (apiType, remedy) => {
    const org = randomUUID();
    await app.credit(org, '2');
    const refused = app.rpc.request(BillingContracts.reserve, {
      generationId: `gen_${randomUUID()}`,
      organizationId: org,
      apiKeyId: null,
      maxAmount: '5',
      minAmount: '3',
      model: 'demo/model',
      apiType,
    });
    await expect(refused).rejects.toMatchObject({ code: 'insufficient_balance', status: 402 });
    await expect(refused).rejects.toThrow(`needs at least 3.00000000 RUB. ${remedy}`);
  });

  it('refuses an empty account even for a request with no minimum', async () => {
    await expect(reserve(randomUUID(), '1', '0')).rejects.toMatchObject({ code: 'insufficient_balance' });
  });

  it('answers the existing hold to a repeated reserve of the same generation', async () => {
    const org = randomUUID();
    const generationId = `gen_${randomUUID()}`;
    await app.credit(org, '10');
    const first = await reserve(org, '3', '1', generationId);
    const again = await Promise.all(Array.from({ length: 5 }, () => reserve(org, '7', '1', generationId)));
    expect(first).toEqual({ generationId, reservedAmount: '3.00000000' });
    expect(again).toEqual(Array(5).fill(first));
    expect(
      await app.count(`billing.reservations WHERE organization_id = $1 AND status = 'held'`, [org]),
    ).toBe(1);
  });

  it('counts holds to the last of their 8 decimals, past what a double holds', async () => {
    const org = randomUUID();
    const generationId = `gen_${randomUUID()}`;
    await app.credit(org, '2000000000');
    const first = await reserve(org, '1234567890.12345678', '1', generationId);
    expect(first).toEqual({ generationId, reservedAmount: '1234567890.12345678' });
    await expect(reserve(org, '7', '1', generationId)).resolves.toEqual(first);
    await expect(reserve(org, '999999999', '1')).resolves.toMatchObject({
      reservedAmount: '765432109.87654322',
    });
  });

  it("refuses another organization's generation id with conflict", async () => {
    const generationId = `gen_${randomUUID()}`;
    const [a, b] = [randomUUID(), randomUUID()];
    await app.credit(a, '5');
    await app.credit(b, '5');
    await reserve(a, '1', '1', generationId);
    await expect(reserve(b, '1', '1', generationId)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('keeps the rest of a batch whose generation id another organization holds: that one alone is refused, nothing is held twice', async () => {
    const taken = `gen_${randomUUID()}`;
    const [a, b] = [randomUUID(), randomUUID()];
    await app.credit(a, '10');
    await app.credit(b, '10');
    await reserve(b, '2', '2', taken);
    const generations = [1, 2, 3, 4, 5].map(() => `gen_${randomUUID()}`);
    generations.splice(3, 0, taken);
    // Submitted in one turn of the event loop, the six go in one batch, whose commit the taken id fails.
    const ledger = app.services[0].get(LedgerService);
    const pending = generations.map((generationId) =>
      ledger.reserve({ generationId, organizationId: a, apiKeyId: null, maxAmount: '1', minAmount: '1' }),
    );
    const results = await Promise.allSettled(pending);
    expect(
      results.map((r) =>
        r.status === 'fulfilled' ? r.value.reservedAmount : (r.reason as { code: string }).code,
      ),
    ).toEqual(['1.00000000', '1.00000000', '1.00000000', 'conflict', '1.00000000', '1.00000000']);
    const holds: { organization_id: string; amount: string }[] = await app.sql.query(
      `SELECT organization_id, amount FROM billing.reservations
        WHERE organization_id = ANY($1::uuid[]) AND status = 'held' ORDER BY organization_id = $2, amount`,
      [[a, b], b],
    );
    expect(holds).toEqual([
      ...Array.from({ length: 5 }, () => ({ organization_id: a, amount: '1.00000000' })),
      { organization_id: b, amount: '2.00000000' },
    ]);
    await expect(reserve(a, '100', '0')).resolves.toMatchObject({ reservedAmount: '5.00000000' });
  });

  it('refuses malformed amounts and minAmount above maxAmount with invalid_request', async () => {
    const org = randomUUID();
    await app.credit(org, '5');
    await expect(reserve(org, '1.5x', '0')).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'maxAmount',
    });
    await expect(reserve(org, '1', '2')).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'minAmount',
    });
  });

  it('never holds more than the balance under 50 parallel reserves', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => reserve(org, '0.75', '0.5')));
    const held = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<{ reservedAmount: string }>).value);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    // 13 holds of 0.75 use 9.75; the 14th gets the remaining 0.25 < 0.5 and is refused, as is everything after.
    expect(held).toHaveLength(13);
    expect(held.every((h) => h.reservedAmount === '0.75000000')).toBe(true);
    expect(refused).toHaveLength(37);
    expect(refused.every((e: { code?: string }) => e.code === 'insufficient_balance')).toBe(true);
    const rows = await app.sql.query(
      `SELECT sum(amount) AS total FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
      [org],
    );
    expect(rows[0].total).toBe('9.75000000');
  });

  it('never holds more than the balance when every reserve takes whatever is left', async () => {
    const org = randomUUID();
    await app.credit(org, '1');
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => reserve(org, '0.3', '0')));
    const held = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.reservedAmount] : []));
    expect(held.sort()).toEqual(['0.10000000', '0.30000000', '0.30000000', '0.30000000']);
  });
});
