import { BillingContracts, type GenerationFinishedEvent } from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { GenerationRecorded, LedgerRepository, type NewGeneration } from '../src/ledger/ledger.repository';
import { SettlementService } from '../src/settlement/settlement.service';
import { BillingTestApp } from './billing-test-app';

describe('billing settlement from JetStream', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_settlement');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, generationId: string, maxAmount: string) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId: null,
      maxAmount,
      minAmount: '0',
    });
  const recorded = (generationId: string) => app.count(`billing.generations WHERE id = $1`, [generationId]);
  const charges = (generationId: string) =>
    app.count(`billing.ledger_entries WHERE generation_id = $1 AND kind = 'charge'`, [generationId]);
  const reservationStatus = async (generationId: string) =>
    (
      await app.sql.query(`SELECT status FROM billing.reservations WHERE generation_id = $1`, [generationId])
    )[0]?.status;
  const generationRow = async (generationId: string) =>
    (
      await app.sql.query(
        `SELECT cost, client_cost, list_status, is_cancelled FROM billing.generations WHERE id = $1`,
        [generationId],
      )
    )[0];

  /** The consumer handles events in order, so once a later event is recorded every earlier delivery has been handled. */
  async function drain(organizationId: string): Promise<void> {
    const sentinel = generationFinishedEvent(organizationId, { cost: '0' });
    await app.publish(sentinel);
    await expectEventually(async () => expect(await recorded(sentinel.generationId)).toBe(1));
  }

  it('settles a published event: charges the cost, settles the hold and records the history', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '2.5' });
    await reserve(org, event.generationId, '5');
    await app.publish(event);
    await expectEventually(async () => expect(await app.balance(org)).toBe('7.50000000'));
    expect(await reservationStatus(event.generationId)).toBe('settled');
    expect(await charges(event.generationId)).toBe(1);
    expect(await generationRow(event.generationId)).toEqual({
      cost: '2.50000000',
      client_cost: '2.50000000',
      list_status: 'completed',
      is_cancelled: false,
    });
  });

  it('never charges more than the reservation held', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '3' });
    await reserve(org, event.generationId, '1');
    await app.publish(event);
    await expectEventually(async () => expect(await recorded(event.generationId)).toBe(1));
    await expect(app.balance(org)).resolves.toBe('9.00000000');
    expect(await generationRow(event.generationId)).toMatchObject({
      cost: '3.00000000',
      client_cost: '1.00000000',
    });
  });

  it('charges the full cost when nothing was reserved', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '0.123456789' });
    await app.publish(event);
    await expectEventually(async () => expect(await app.balance(org)).toBe('9.87654321'));
  });

  it('releases the hold of a failed generation without a ledger entry', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, {
      cost: '0',
      status: 'failed',
      error: { code: 'BAD_GATEWAY', message: 'upstream failed' },
    });
    await reserve(org, event.generationId, '4');
    await app.publish(event);
    await expectEventually(async () => expect(await reservationStatus(event.generationId)).toBe('released'));
    expect(await charges(event.generationId)).toBe(0);
    expect(await generationRow(event.generationId)).toMatchObject({ list_status: 'failed' });
    await expect(app.balance(org)).resolves.toBe('10.00000000');
    await expect(reserve(org, `gen_${randomUUID()}`, '10')).resolves.toMatchObject({
      reservedAmount: '10.00000000',
    });
  });

  it('records a cancelled generation as failed in the list, whether it cost something or not', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const paid = generationFinishedEvent(org, { status: 'cancelled', cost: '0.4', isCancelled: false });
    const free = generationFinishedEvent(org, { status: 'cancelled', cost: '0' });
    await app.publish(paid);
    await app.publish(free);
    await expectEventually(async () => expect(await recorded(free.generationId)).toBe(1));
    expect(await generationRow(paid.generationId)).toMatchObject({
      list_status: 'failed',
      is_cancelled: true,
      client_cost: '0.40000000',
    });
    expect(await generationRow(free.generationId)).toMatchObject({
      list_status: 'failed',
      is_cancelled: true,
    });
  });

  it('charges once when the same event is published several times', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '1' });
    await reserve(org, event.generationId, '2');
    // Distinct message ids, so JetStream's own deduplication does not hide the duplicates from billing.
    for (let i = 0; i < 3; i++) await app.publish(event);
    await drain(org);
    expect(await charges(event.generationId)).toBe(1);
    expect(await recorded(event.generationId)).toBe(1);
    await expect(app.balance(org)).resolves.toBe('9.00000000');
  });

  it('settles once an event whose first delivery failed and was redelivered', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '2' });
    await reserve(org, event.generationId, '2');
    // A sequence survives the rollback of the failing transaction, so exactly the first attempt fails.
    await app.sql.query(`CREATE SEQUENCE public.attempts`);
    await app.sql.query(`CREATE FUNCTION public.fail_first_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = '${event.generationId}' AND nextval('public.attempts') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$`);
    await app.sql.query(
      `CREATE TRIGGER fail_first_attempt BEFORE INSERT ON billing.generations FOR EACH ROW EXECUTE FUNCTION public.fail_first_attempt()`,
    );
    try {
      await app.publish(event);
      await expectEventually(async () => expect(await recorded(event.generationId)).toBe(1));
      const rows = await app.sql.query(`SELECT last_value FROM public.attempts`);
      expect(Number(rows[0].last_value)).toBe(2);
      expect(await charges(event.generationId)).toBe(1);
      await expect(app.balance(org)).resolves.toBe('8.00000000');
      expect(await reservationStatus(event.generationId)).toBe('settled');
    } finally {
      await app.sql.query(`DROP TRIGGER fail_first_attempt ON billing.generations`);
    }
  });

  it('settles once when deliveries of one event race each other', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const event = generationFinishedEvent(org, { cost: '3' });
    await reserve(org, event.generationId, '3');
    const settlement = app.services[0].get(SettlementService);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => settlement.settle(event)));
    expect(outcomes.filter((o) => o === 'settled')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(7);
    expect(await charges(event.generationId)).toBe(1);
    await expect(app.balance(org)).resolves.toBe('7.00000000');
  });

  it('decides a batch in order: holds freed by earlier events count, a repeat and a foreign generation are duplicates', async () => {
    const org = randomUUID();
    const other = randomUUID();
    await app.credit(org, '10');
    await app.credit(other, '10');
    const first = generationFinishedEvent(org, { cost: '2' });
    const second = generationFinishedEvent(org, { cost: '2' });
    const unreserved = generationFinishedEvent(org, { cost: '4' });
    const late = generationFinishedEvent(org, { cost: '1' });
    await reserve(org, first.generationId, '3');
    await reserve(org, second.generationId, '2');
    await reserve(org, late.generationId, '1');
    await app.sql.query(
      `UPDATE billing.reservations SET expires_at = now() - interval '1 second' WHERE generation_id = $1`,
      [late.generationId],
    );
    const settlement = app.services[0].get(SettlementService);
    await expect(settlement.expire({ organizationId: org, generationId: late.generationId })).resolves.toBe(
      true,
    );
    const foreign = { ...generationFinishedEvent(other, { cost: '5' }), generationId: first.generationId };

    const outcomes = await settlement.settleBatch([first, second, first, foreign, unreserved, late]);

    expect(outcomes.map((o) => (o.ok ? o.value : 'refused'))).toEqual([
      'settled',
      'settled',
      'duplicate',
      'duplicate',
      'settled',
      'settled',
    ]);
    // 10 − 2 − 2; the unreserved event finds both holds freed (6 free) and pays its 4; the late one pays from the last 2.
    expect((await generationRow(unreserved.generationId)).client_cost).toBe('4.00000000');
    expect((await generationRow(late.generationId)).list_status).toBe('completed');
    await expect(app.balance(org)).resolves.toBe('1.00000000');
    await expect(app.balance(other)).resolves.toBe('10.00000000');
    expect(await charges(first.generationId)).toBe(1);
    expect(await reservationStatus(first.generationId)).toBe('settled');
    expect(await reservationStatus(late.generationId)).toBe('settled');
  });

  it('settles a generation id once when organizations race for it: the others are duplicates and pay nothing', async () => {
    const orgs = Array.from({ length: 6 }, () => randomUUID());
    for (const org of orgs) await app.credit(org, '10');
    const generationId = randomUUID();
    const events = orgs.map((org) => ({ ...generationFinishedEvent(org, { cost: '2' }), generationId }));
    const settlement = app.services[0].get(SettlementService);

    // Each organization's account lock is its own, so the history row's primary key is where they meet.
    const outcomes = await Promise.all(events.map((event) => settlement.settle(event)));

    expect(outcomes.filter((o) => o === 'settled')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(5);
    expect(await charges(generationId)).toBe(1);
    const balances = await Promise.all(orgs.map((org) => app.balance(org)));
    expect(balances.filter((balance) => balance === '8.00000000')).toHaveLength(1);
    expect(balances.filter((balance) => balance === '10.00000000')).toHaveLength(5);
  });

  it('keeps nothing of a settlement batch whose generation another transaction records before it commits', async () => {
    const org = randomUUID();
    const other = randomUUID();
    await app.credit(org, '10');
    await app.credit(other, '10');
    const event = generationFinishedEvent(org, { cost: '2' });
    const foreign = { ...generationFinishedEvent(other, { cost: '3' }), generationId: event.generationId };
    const ledger = app.services[0].get(LedgerRepository);
    const settlement = app.services[0].get(SettlementService);

    const settling = ledger.settlementTransaction(async (tx) => {
      const key = { organizationId: org, generationId: event.generationId };
      const state = await tx.open({ organizationIds: [org], generations: [key], keys: [] });
      expect(state.recorded).toEqual([]);
      await expect(settlement.settle(foreign)).resolves.toBe('settled');
      await tx.commit({
        generations: [historyRow(event)],
        replacements: [],
        entries: [
          {
            organizationId: org,
            kind: 'charge',
            amount: new Decimal(2),
            balanceAfter: new Decimal(8),
            generationId: event.generationId,
          },
        ],
        marks: [],
        balances: new Map([[org, new Decimal(8)]]),
        counters: [],
      });
    });

    await expect(settling).rejects.toBeInstanceOf(GenerationRecorded);
    await expect(app.balance(org)).resolves.toBe('10.00000000');
    await expect(app.balance(other)).resolves.toBe('7.00000000');
    expect(await charges(event.generationId)).toBe(1);
  });

  it('drops an event that can never be recorded and goes on with the next', async () => {
    const org = randomUUID();
    await app.publish({
      ...generationFinishedEvent(org),
      organizationId: 'not-a-uuid',
    });
    await drain(org);
    await expect(app.balance(org)).resolves.toBe('0.00000000');
  });

  it('shares the durable consumer between replicas: every event is settled once', async () => {
    const org = randomUUID();
    await app.credit(org, '100');
    const second = await app.startService();
    try {
      const events = Array.from({ length: 20 }, () => generationFinishedEvent(org, { cost: '0.5' }));
      await Promise.all(events.map((e) => app.publish(e)));
      await Promise.all(events.map((e) => app.publish(e)));
      await expectEventually(async () =>
        expect(await app.count(`billing.generations WHERE organization_id = $1`, [org])).toBe(20),
      );
      await drain(org);
      expect(
        await app.count(`billing.ledger_entries WHERE organization_id = $1 AND kind = 'charge'`, [org]),
      ).toBe(20);
      await expect(app.balance(org)).resolves.toBe('90.00000000');
    } finally {
      await app.stopService(second);
    }
  });

  it('loses nothing and charges nothing twice across a restart of billing', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const events: GenerationFinishedEvent[] = Array.from({ length: 5 }, () =>
      generationFinishedEvent(org, { cost: '1.25' }),
    );
    for (const e of events.slice(0, 2)) await reserve(org, e.generationId, '2');
    for (const service of [...app.services]) await app.stopService(service);

    for (const e of events) await app.publish(e);
    await app.publish(events[0]);
    expect(await app.count(`billing.generations WHERE organization_id = $1`, [org])).toBe(0);

    await app.startService();
    await expectEventually(async () =>
      expect(await app.count(`billing.generations WHERE organization_id = $1`, [org])).toBe(5),
    );
    await drain(org);
    for (const e of events) expect(await charges(e.generationId)).toBe(1);
    await expect(app.balance(org)).resolves.toBe('3.75000000');
    expect(await reservationStatus(events[0].generationId)).toBe('settled');
  });
});

/** The history row a settled event makes, as far as the test of a lost race needs one. */
function historyRow(event: GenerationFinishedEvent): NewGeneration {
  return {
    id: event.generationId,
    organizationId: event.organizationId,
    apiKeyId: null,
    apiKeyName: null,
    apiKeyShort: null,
    userId: null,
    model: event.model,
    requestType: event.requestType,
    apiType: event.apiType,
    responseMode: event.responseMode,
    status: 'completed',
    listStatus: 'completed',
    finishReason: 'stop',
    provider: null,
    usage: null,
    cost: event.cost,
    clientCost: event.cost,
    generationTimeMs: null,
    latencyMs: null,
    queueTimeMs: null,
    attemptsCount: 1,
    isCancelled: false,
    error: null,
    createdAt: new Date(event.createdAt),
    completedAt: null,
  };
}
