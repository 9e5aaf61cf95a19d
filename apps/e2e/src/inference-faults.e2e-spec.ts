import { RESERVATION_EXPIRED_ERROR_CODE } from '@gw/contracts';
import { expectEventually } from '@gw/testing';
import { http, seedOrganization } from './support/gateway-http';
import { useShortLeaseStack } from './support/short-lease-stack';

/**
 * Inference killed while chats wait on a slow upstream: each client hears a clean 503 within
 * seconds (the RPC client's liveness probe, not the heartbeats' idle timeout nor a 600 s wait), and billing releases
 * their holds once the leases the dead process renewed run out (not after the 15-minute TTL).
 */
describe('inference faults (distributed mode)', () => {
  const { stack, adminToken: ADMIN_TOKEN, held, query } = useShortLeaseStack('inference-faults');

  it('answers chats in flight with a 503 envelope within seconds and releases their holds', async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const chat = (stream: boolean) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: {
          model: 'demo/chat',
          stream,
          messages: [
            { role: 'user', content: `[[delay:25000]] an answer nobody will see, stream ${stream}` },
          ],
        },
      });
    const inFlight = [chat(false), chat(true)];
    await expectEventually(async () => expect((await held()).count).toBe(2), { timeoutMs: 20_000 });

    const killedAt = Date.now();
    await stack.apps.get('inference')?.stop('SIGKILL');
    const results = await Promise.all(inFlight);
    const answeredAfterMs = Date.now() - killedAt;

    for (const result of results) {
      expect(result.status).toBe(503);
      expect(result.body).toMatchObject({ error: { code: 'service_unavailable' } });
    }
    // The RPC client probes whether anybody still serves the subject (decision 135): seconds, not the idle timeout.
    expect(answeredAfterMs).toBeLessThan(4_000);

    await expectEventually(async () => expect(await held()).toEqual({ count: 0, amount: '0' }), {
      timeoutMs: 20_000,
    });
    const failed = await http('GET', `${stack.api}/v1/history/generations?limit=10&status=failed`, {
      token: org.apiKey,
    });
    expect(failed.body.items).toHaveLength(2);
    for (const item of failed.body.items)
      expect(item).toMatchObject({ status: 'failed', cost: '0.00000000' });
    // The reason is kept with the entry (history's API does not show errors): released by the sweep, not settled.
    const rows = await query<{ code: string }>(
      `SELECT "error"->>'code' AS "code" FROM "billing"."generations" WHERE "organization_id" = $1`,
      [org.organizationId],
    );
    expect(rows.map((row) => row.code)).toEqual([
      RESERVATION_EXPIRED_ERROR_CODE,
      RESERVATION_EXPIRED_ERROR_CODE,
    ]);
    const balance = await http('GET', `${stack.api}/v1/balance`, { token: org.apiKey });
    expect(balance.body.amount).toBe('100.00000000');
  }, 60_000);
});
