import { Decimal } from 'decimal.js';
import { GENERATION_UNDELIVERED_ERROR_CODE } from '@gw/contracts';
import { expectEventually } from '@gw/testing';
import { http, type HttpResult, seedOrganization, sseData } from './support/gateway-http';
import { useShortLeaseStack } from './support/short-lease-stack';

const CHATS = 6;

interface HistoryRow {
  id: string;
  status: string;
  cost: string;
  code: string | null;
}

/** The id of the generation a client received in full, or null when it got no successful answer. */
function deliveredId(result: HttpResult<unknown>, stream: boolean): string | null {
  if (result.status !== 200) return null;
  if (!stream) return (result.body as { id: string }).id;
  const data = sseData(result.text);
  if (data[data.length - 1] !== '[DONE]') return null;
  return (JSON.parse(data[0]) as { id: string }).id;
}

/**
 * Generations that inference finished after the gateway had given up on them (the bus restarted,
 * or inference froze past the idle timeout) are not charged: every client that got no successful
 * answer sees its generation failed at cost 0, and the balance is the credit less what history
 * charged for the answers that were delivered.
 */
describe('no charge for what the gateway could not deliver (distributed mode)', () => {
  const { stack, adminToken: ADMIN_TOKEN, held, query } = useShortLeaseStack('undelivered-charges');

  async function chatsInFlight(apiKey: string, content: string) {
    const streams = Array.from({ length: CHATS }, (_, i) => i % 2 === 1);
    const inFlight = streams.map((stream, i) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: apiKey,
        body: {
          model: 'demo/chat',
          stream,
          messages: [{ role: 'user', content: `${content}, number ${i}` }],
        },
      }),
    );
    await expectEventually(async () => expect((await held()).count).toBe(CHATS), { timeoutMs: 20_000 });
    return { streams, inFlight };
  }

  /**
   * Waits until billing has settled every chat, then checks each one's charge against what its
   * client got. Read from billing's tables: after a NATS restart the gateway's rate-limit store is
   * gone, so its history and balance routes answer 503.
   */
  async function expectChargedOnlyWhatWasDelivered(
    organizationId: string,
    streams: boolean[],
    results: HttpResult<unknown>[],
  ): Promise<void> {
    const delivered = new Set(
      results.map((result, i) => deliveredId(result, streams[i])).filter((id) => id !== null),
    );
    expect(delivered.size).toBeLessThan(CHATS);
    const history = () =>
      query<HistoryRow>(
        `SELECT "id", "list_status" AS "status", "client_cost"::text AS "cost", "error"->>'code' AS "code"
           FROM "billing"."generations" WHERE "organization_id" = $1`,
        [organizationId],
      );
    await expectEventually(
      async () => {
        expect(await held()).toEqual({ count: 0, amount: '0' });
        const rows = await history();
        expect(rows).toHaveLength(CHATS);
        // Free, and says why: UNDELIVERED, or the generation's own earlier reason when it had already failed at no
        // cost (its hold expired, RESERVATION_EXPIRED, or its resumed producer could not reach billing).
        for (const row of rows.filter((row) => !delivered.has(row.id))) {
          expect(row).toMatchObject({ status: 'failed', cost: '0.00000000' });
          expect(row.code).toEqual(expect.any(String));
        }
        expect(rows.some((row) => row.code === GENERATION_UNDELIVERED_ERROR_CODE)).toBe(true);
        for (const row of rows.filter((row) => delivered.has(row.id))) expect(row.code).toBeNull();
      },
      { timeoutMs: 45_000 },
    );
    const rows = await history();
    const charged = rows.reduce((sum, row) => sum.plus(row.cost), new Decimal(0));
    const [account] = await query<{ balance: string }>(
      `SELECT "balance"::text AS "balance" FROM "billing"."accounts" WHERE "organization_id" = $1`,
      [organizationId],
    );
    expect(account.balance).toBe(new Decimal('100').minus(charged).toFixed(8));
  }

  it(`charges none of ${CHATS} chats that a frozen inference finished after their clients got a 503`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const { streams, inFlight } = await chatsInFlight(org.apiKey, '[[delay:1500]] answered too late');
    const inference = stack.apps.get('inference');

    inference?.child.kill('SIGSTOP');
    let results: HttpResult<unknown>[];
    try {
      results = await Promise.all(inFlight);
    } finally {
      inference?.child.kill('SIGCONT');
    }

    for (const result of results) expect(result.status).toBe(503);
    await expectChargedOnlyWhatWasDelivered(org.organizationId, streams, results);
  }, 90_000);

  it(`charges none of ${CHATS} chats that finished while NATS restarted and their clients got a 503`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const { streams, inFlight } = await chatsInFlight(org.apiKey, '[[delay:4000]] across the restart');

    await stack.restartNats(12_000);
    const results = await Promise.all(inFlight);

    await expectChargedOnlyWhatWasDelivered(org.organizationId, streams, results);
  }, 90_000);

  /**
   * The gateway dies with generations in flight: its own undelivered reports die with it, so
   * inference, which sees that the gateway that asked is gone, records them undelivered. Run last:
   * the first gateway stays dead and a new one takes its place.
   */
  it('charges none of the chats in flight when their gateway is SIGKILLed', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const chat = (stream: boolean, content: string) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: { model: 'demo/chat', stream, messages: [{ role: 'user', content }] },
      }).catch((err: unknown) => err);
    const inFlight = [
      ...[0, 1].map((i) => chat(false, `[[delay:8000]] answered after the gateway died, plain ${i}`)),
      ...[0, 1, 2].map((i) =>
        chat(true, `[[slow:500]] streamed across the crash of its gateway, cut ${i} ${'word '.repeat(20)}`),
      ),
    ];
    await expectEventually(async () => expect((await held()).count).toBe(inFlight.length), {
      timeoutMs: 20_000,
    });

    await stack.apps.get('api-gateway')?.stop('SIGKILL');
    await Promise.all(inFlight);
    const api = await stack.startGatewayReplica();

    const codes = () =>
      query<{ code: string | null }>(
        `SELECT "error"->>'code' AS "code" FROM "billing"."generations" WHERE "organization_id" = $1`,
        [org.organizationId],
      );
    await expectEventually(
      async () => {
        const history = await http('GET', `${api}/v1/history/generations?limit=100`, { token: org.apiKey });
        expect(history.status).toBe(200);
        const items = (history.body as { items: Array<{ status: string; cost: string }> }).items;
        expect(
          items.map((item) => ({ status: item.status, cost: new Decimal(item.cost).toNumber() })),
        ).toEqual(inFlight.map(() => ({ status: 'failed', cost: 0 })));
        expect((await codes()).map((row) => row.code)).toEqual(
          inFlight.map(() => GENERATION_UNDELIVERED_ERROR_CODE),
        );
        const balance = await http('GET', `${api}/v1/balance`, { token: org.apiKey });
        expect(new Decimal((balance.body as { amount: string }).amount).toFixed(8)).toBe('100.00000000');
        expect(await held()).toEqual({ count: 0, amount: '0' });
      },
      { timeoutMs: 45_000 },
    );
  }, 120_000);
});
