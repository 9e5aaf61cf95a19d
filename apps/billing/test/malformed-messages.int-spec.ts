import { type AddCreditsRequest, BillingContracts, type ReserveCreditRequest } from '@gw/contracts';
import { malformedMessages } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing refuses malformed NATS messages', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_malformed');
  });

  afterAll(async () => {
    await app.stop();
  });

  const organizationId = randomUUID();
  const validReserve = {
    generationId: `gen_${randomUUID()}`,
    organizationId,
    apiKeyId: null,
    maxAmount: '1',
    minAmount: '0',
  };

  it.each(malformedMessages(validReserve, 'organizationId'))(
    'answers a reserve $label with invalid_request and holds nothing',
    async ({ payload, param }) => {
      await app.credit(organizationId, '5');
      await expect(
        app.rpc.request(BillingContracts.reserve, payload as ReserveCreditRequest),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
      expect(await app.count('billing.reservations', [])).toBe(0);
    },
  );

  it.each(
    malformedMessages(
      { organizationId: randomUUID(), amount: '10', reason: null, idempotencyKey: null },
      'amount',
    ),
  )('answers a credit $label with invalid_request and writes no ledger entry', async ({ payload, param }) => {
    const before = await app.count(`billing.ledger_entries WHERE kind = 'credit'`, []);
    await expect(
      app.rpc.request(BillingContracts.addCredits, payload as AddCreditsRequest),
    ).rejects.toMatchObject({ code: 'invalid_request', param });
    expect(await app.count(`billing.ledger_entries WHERE kind = 'credit'`, [])).toBe(before);
  });

  it('refuses a principal of an unknown kind in a history request', async () => {
    await expect(
      app.rpc.request(BillingContracts.getHistory, {
        principal: { kind: 'robot', organizationId } as never,
        id: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'principal.kind' });
  });

  it('still answers a well-formed reserve', async () => {
    await expect(app.rpc.request(BillingContracts.reserve, validReserve)).resolves.toMatchObject({
      reservedAmount: '1.00000000',
    });
  });
});
