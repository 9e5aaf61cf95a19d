import { BillingContracts } from '@gw/contracts';
import { scrapeMetrics } from '@gw/platform';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

/** The value of one sample of the process's scrape, 0 when the series is not there yet. */
async function sample(series: string): Promise<number> {
  const line = (await scrapeMetrics()).body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("billing's metrics", () => {
  let app: BillingTestApp;

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_metrics', { RESERVATION_TTL_MS: 3_000 });
  });

  afterAll(async () => {
    await app.stop();
  });

  const reserve = (organizationId: string, generationId: string, amount: string) =>
    app.rpc.request(BillingContracts.reserve, {
      generationId,
      organizationId,
      apiKeyId: null,
      maxAmount: amount,
      minAmount: amount,
      model: 'demo/chat',
      requestType: 'chat',
      apiType: 'chat_completions',
      responseMode: 'sync',
    });

  it('counts the tokens and roubles of a settled generation by model, once', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const series = {
      prompt: 'gw_billed_tokens_total{model="demo/metrics",kind="prompt",service="billing"}',
      completion: 'gw_billed_tokens_total{model="demo/metrics",kind="completion",service="billing"}',
      roubles: 'gw_billed_rub_total{model="demo/metrics",service="billing"}',
    };
    const event = generationFinishedEvent(org, {
      model: 'demo/metrics',
      cost: '1.25',
      usage: { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 },
    });
    await reserve(org, event.generationId, '2');
    await app.publish(event);
    await app.publish(event);
    await expectEventually(async () => expect(await app.balance(org)).toBe('8.75000000'));
    const sentinel = generationFinishedEvent(org, { cost: '0' });
    await app.publish(sentinel);
    await expectEventually(async () =>
      expect(await app.count(`billing.generations WHERE id = $1`, [sentinel.generationId])).toBe(1),
    );
    expect(await sample(series.prompt)).toBe(12);
    expect(await sample(series.completion)).toBe(34);
    expect(await sample(series.roubles)).toBeCloseTo(1.25, 8);
  });

  it('shows the open holds at scrape time and counts the ones the sweeper releases', async () => {
    const org = randomUUID();
    await app.credit(org, '10');
    const expiredBefore = await sample('gw_reservations_expired_total{service="billing"}');
    await reserve(org, `gen_${randomUUID()}`, '3');
    await reserve(org, `gen_${randomUUID()}`, '1.5');
    expect(await sample('gw_open_holds{service="billing"}')).toBe(2);
    expect(await sample('gw_open_holds_rub{service="billing"}')).toBe(4.5);

    await expectEventually(
      async () => {
        expect(await sample('gw_open_holds{service="billing"}')).toBe(0);
        expect(await sample('gw_reservations_expired_total{service="billing"}')).toBe(expiredBefore + 2);
      },
      { timeoutMs: 10_000 },
    );
    expect(await sample('gw_open_holds_rub{service="billing"}')).toBe(0);
  });
});
