import { expectEventually } from '@gw/testing';
import { http, seedOrganization } from './support/gateway-http';
import { useShortLeaseStack } from './support/short-lease-stack';

const CHATS = 6;

/**
 * NATS restarted while chats wait on a slow upstream: every client gets an answer (its chat, or
 * a 503 envelope) within seconds of the restart rather than a dropped connection minutes later,
 * and no hold outlives its lease.
 */
describe('bus faults (distributed mode)', () => {
  const { stack, adminToken: ADMIN_TOKEN, held } = useShortLeaseStack('bus-faults');

  it(`answers each of ${CHATS} chats in flight across a NATS restart within seconds`, async () => {
    const org = await seedOrganization(stack.api, ADMIN_TOKEN, '100.00');
    const inFlight = Array.from({ length: CHATS }, (_, i) =>
      http('POST', `${stack.api}/v1/chat/completions`, {
        token: org.apiKey,
        body: {
          model: 'demo/chat',
          stream: i % 2 === 1,
          messages: [{ role: 'user', content: `[[delay:4000]] across the restart, number ${i}` }],
        },
      }),
    );
    await expectEventually(async () => expect((await held()).count).toBe(CHATS), { timeoutMs: 20_000 });

    const restartedAt = Date.now();
    await stack.restartNats(12_000);
    const results = await Promise.all(inFlight);
    const answeredAfterMs = Date.now() - restartedAt;

    expect(answeredAfterMs).toBeLessThan(25_000);
    for (const result of results) {
      if (result.status === 200) continue;
      expect(result.status).toBe(503);
      expect(result.body).toMatchObject({ error: { code: 'service_unavailable' } });
    }
    await expectEventually(async () => expect((await held()).count).toBe(0), { timeoutMs: 30_000 });
  }, 60_000);
});
