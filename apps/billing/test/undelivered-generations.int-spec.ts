import {
  BillingContracts,
  BillingEvents,
  GENERATION_UNDELIVERED_ERROR_CODE,
  type GenerationUndeliveredEvent,
} from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { UndeliveredGenerationService } from '../src/settlement/undelivered-generation.service';
import { BillingTestApp } from './billing-test-app';

/**
 * A generation the gateway could not deliver is not charged, whichever of the gateway's report and
 * the generation's outcome reaches billing first, however often either is delivered.
 */
describe('billing: generations the gateway could not deliver', () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_undelivered');
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, generationId: string, apiKeyId: string) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId,
      maxAmount: '5',
      minAmount: '0',
    });
  const report = (event: GenerationUndeliveredEvent) =>
    app.publisher.publish(BillingEvents.generationUndelivered, event, randomUUID());
  const undelivered = (organizationId: string, generationId: string): GenerationUndeliveredEvent => ({
    generationId,
    organizationId,
    reason: 'The service behind inference.v1.chat-completion did not answer in time',
  });
  const history = async (generationId: string) =>
    (
      await app.sql.query(
        `SELECT status, list_status, cost, client_cost, error FROM billing.generations WHERE id = $1`,
        [generationId],
      )
    )[0] as
      { status: string; list_status: string; cost: string; client_cost: string; error: unknown } | undefined;
  const entries = async (generationId: string) =>
    app.sql.query<{ kind: string; amount: string; reason: string | null }[]>(
      `SELECT kind, amount, reason FROM billing.ledger_entries WHERE generation_id = $1 ORDER BY created_at`,
      [generationId],
    );
  /** Only keys with limits keep spending counters (decision 91): these tests check that a refund moves them back. */
  const limitKey = (organizationId: string, apiKeyId: string) =>
    app.rpc.request(BillingContracts.setKeyLimits, {
      organizationId,
      apiKeyId,
      limits: [{ period: 'total', amount: '1000' }],
    });
  const spentTotal = async (organizationId: string, apiKeyId: string) =>
    (
      await app.sql.query(
        `SELECT spent, held FROM billing.spending_counters
          WHERE organization_id = $1 AND api_key_id = $2 AND period = 'total'`,
        [organizationId, apiKeyId],
      )
    )[0] as { spent: string; held: string } | undefined;
  const reportKept = (generationId: string) =>
    app.count(`billing.undelivered_generations WHERE generation_id = $1`, [generationId]);

  const failedUndelivered = {
    status: 'failed',
    list_status: 'failed',
    cost: '2.50000000',
    client_cost: '0.00000000',
    error: {
      code: GENERATION_UNDELIVERED_ERROR_CODE,
      message:
        'The gateway could not deliver the answer (The service behind inference.v1.chat-completion did not answer in time); nothing is charged for it.',
    },
  };

  it('does not charge an outcome that arrives after the report, and frees its hold', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '10');
    await limitKey(org, key);
    const finished = generationFinishedEvent(org, { cost: '2.5', apiKeyId: key });
    await reserve(org, finished.generationId, key);

    await report(undelivered(org, finished.generationId));
    await expectEventually(async () => expect(await reportKept(finished.generationId)).toBe(1));
    expect(await history(finished.generationId)).toBeUndefined();
    await app.publish(finished);

    await expectEventually(async () =>
      expect(await history(finished.generationId)).toEqual(failedUndelivered),
    );
    await expectEventually(async () => expect(await app.balance(org)).toBe('10.00000000'));
    expect(
      await app.count(`billing.reservations WHERE generation_id = $1 AND status = 'held'`, [
        finished.generationId,
      ]),
    ).toBe(0);
    expect(await spentTotal(org, key)).toEqual({ spent: '0.00000000', held: '0.00000000' });
  });

  it('refunds an outcome already charged when the report comes later, with a refund entry that says why', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '10');
    await limitKey(org, key);
    const finished = generationFinishedEvent(org, { cost: '2.5', apiKeyId: key });
    await reserve(org, finished.generationId, key);
    await app.publish(finished);
    await expectEventually(async () => expect(await app.balance(org)).toBe('7.50000000'));

    await report(undelivered(org, finished.generationId));

    await expectEventually(async () => expect(await app.balance(org)).toBe('10.00000000'));
    expect(await history(finished.generationId)).toEqual(failedUndelivered);
    expect(await entries(finished.generationId)).toEqual([
      { kind: 'charge', amount: '2.50000000', reason: null },
      { kind: 'refund', amount: '2.50000000', reason: failedUndelivered.error.message },
    ]);
    expect(await spentTotal(org, key)).toEqual({ spent: '0.00000000', held: '0.00000000' });
  });

  it('refunds once however often either fact is delivered, also when deliveries race', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '10');
    const finished = generationFinishedEvent(org, { cost: '2.5', apiKeyId: key });
    await reserve(org, finished.generationId, key);
    await app.publish(finished);
    await expectEventually(async () => expect(await app.balance(org)).toBe('7.50000000'));

    const service = app.services[0].get(UndeliveredGenerationService);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => service.report(undelivered(org, finished.generationId))),
    );
    expect(outcomes.filter((outcome) => outcome === 'refunded')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== 'refunded')).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
    ]);

    await report(undelivered(org, finished.generationId));
    await app.publish(finished);
    await app.publish(finished);
    const sentinel = generationFinishedEvent(org, { cost: '0' });
    await app.publish(sentinel);
    await expectEventually(async () => expect(await history(sentinel.generationId)).toBeDefined());

    expect(await app.balance(org)).toBe('10.00000000');
    expect((await entries(finished.generationId)).map((entry) => entry.kind)).toEqual(['charge', 'refund']);
    expect(await history(finished.generationId)).toEqual(failedUndelivered);
  });

  it('charges none of many generations whose report and outcome are published at the same time', async () => {
    const org = randomUUID();
    const key = randomUUID();
    await app.credit(org, '100');
    await limitKey(org, key);
    const generations = Array.from({ length: 20 }, () =>
      generationFinishedEvent(org, { cost: '2.5', apiKeyId: key }),
    );
    for (const finished of generations) await reserve(org, finished.generationId, key);

    await Promise.all(
      generations.flatMap((finished) => [
        app.publish(finished),
        report(undelivered(org, finished.generationId)),
      ]),
    );

    await expectEventually(
      async () =>
        expect(
          await app.count(`billing.generations WHERE organization_id = $1 AND error->>'code' = $2`, [
            org,
            GENERATION_UNDELIVERED_ERROR_CODE,
          ]),
        ).toBe(generations.length),
      { timeoutMs: 20_000 },
    );
    expect(await app.balance(org)).toBe('100.00000000');
    expect(
      await app.count(`billing.reservations WHERE organization_id = $1 AND status = 'held'`, [org]),
    ).toBe(0);
    expect(await spentTotal(org, key)).toEqual({ spent: '0.00000000', held: '0.00000000' });
  }, 30_000);

  it('leaves a generation that failed at no cost with its own reason, and marks one cancelled at no cost', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const upstreamError = { code: 'BAD_GATEWAY', message: 'The provider failed' };
    const failed = generationFinishedEvent(org, { status: 'failed', cost: '0', error: upstreamError });
    const cancelled = generationFinishedEvent(org, { status: 'cancelled', cost: '0', isCancelled: true });
    await app.publish(failed);
    await app.publish(cancelled);
    await expectEventually(async () => expect(await history(cancelled.generationId)).toBeDefined());

    const service = app.services[0].get(UndeliveredGenerationService);
    await expect(service.report(undelivered(org, failed.generationId))).resolves.toBe('unchanged');
    await expect(service.report(undelivered(org, cancelled.generationId))).resolves.toBe('not-charged');

    expect(await history(failed.generationId)).toMatchObject({ status: 'failed', error: upstreamError });
    expect(await history(cancelled.generationId)).toMatchObject({
      status: 'failed',
      client_cost: '0.00000000',
      error: failedUndelivered.error,
    });
    expect(await app.balance(org)).toBe('10.00000000');
  });

  it('leaves a delivered generation charged', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const delivered = generationFinishedEvent(org, { cost: '2.5' });
    const lost = generationFinishedEvent(org, { cost: '1' });
    await report(undelivered(org, lost.generationId));
    await app.publish(lost);
    await app.publish(delivered);
    await expectEventually(async () => expect(await history(delivered.generationId)).toBeDefined());
    await expectEventually(async () =>
      expect((await history(lost.generationId))?.client_cost).toBe('0.00000000'),
    );
    expect(await app.balance(org)).toBe('7.50000000');
    expect(await history(delivered.generationId)).toMatchObject({
      status: 'completed',
      client_cost: '2.50000000',
      error: null,
    });
  });
});
