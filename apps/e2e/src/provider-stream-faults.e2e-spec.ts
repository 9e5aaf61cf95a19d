import Decimal from 'decimal.js';
import { expectEventually } from '@gw/testing';
import type { AppProcess } from './support/app-process';
import { DistributedStack } from './support/distributed-stack';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, seedOrganization, sseData } from './support/gateway-http';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';

/** The mock providers of demo/chat, one per wire. */
const PROVIDERS = { openai: 'Mock Alpha', anthropic: 'Mock Beta' } as const;

interface Target {
  api: string;
  adminToken: string;
  /** The process that reads the provider's stream: the embedded app, or the inference service. */
  reader: AppProcess;
}

/**
 * A provider's error event or mangled line, as issue 26 reproduced it over HTTP: the process that
 * reads the provider keeps serving, and the client hears what the fault was: the provider's
 * overload as 503 and its rate limit as 429, each with a Retry-After; after output a stream's
 * usage and an error event, charged for what it relayed; a plain answer broken off costs nothing.
 */
function providerStreamFaults(target: () => Target): void {
  const chat = (key: string, wire: keyof typeof PROVIDERS, content: string, stream: boolean) =>
    http('POST', `${target().api}/v1/chat/completions`, {
      token: key,
      body: {
        model: 'demo/chat',
        stream,
        provider: { only: [PROVIDERS[wire]] },
        messages: [{ role: 'user', content }],
      },
    });
  const balance = async (key: string) =>
    new Decimal((await http('GET', `${target().api}/v1/balance`, { token: key })).body.amount);

  describe.each(['openai', 'anthropic'] as const)('the %s wire', (wire) => {
    it.each([false, true])(
      "answers the provider's overload before output as 503 with Retry-After (stream: %s)",
      async (stream) => {
        const org = await seedOrganization(target().api, target().adminToken, '10.00');
        const res = await chat(org.apiKey, wire, 'one two [[error-event:first:overloaded]]', stream);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(res.body).toMatchObject({ error: { code: 'upstream_overloaded', type: 'api_error' } });
        expect(target().reader.child.exitCode).toBeNull();
      },
    );

    it.each([false, true])(
      "answers the provider's rate limit as 429 with its own Retry-After (stream: %s)",
      async (stream) => {
        const org = await seedOrganization(target().api, target().adminToken, '10.00');
        const inStream = await chat(org.apiKey, wire, 'one [[error-event:first:rate_limit]]', stream);
        expect(inStream.status).toBe(429);
        expect(inStream.body).toMatchObject({
          error: { code: 'upstream_rate_limited', type: 'rate_limit_error' },
        });
        const status = await chat(org.apiKey, wire, 'one [[fail:429]] [[retry-after:2]]', stream);
        expect(status.status).toBe(429);
        expect(status.headers.get('retry-after')).toBe('2');
        expect(status.body).toMatchObject({ error: { code: 'upstream_rate_limited' } });
      },
    );

    it.each([false, true])(
      'answers a line that is not JSON before output as 502 (stream: %s)',
      async (stream) => {
        const org = await seedOrganization(target().api, target().adminToken, '10.00');
        const res = await chat(org.apiKey, wire, 'one two [[malformed:first]]', stream);
        expect(res.status).toBe(502);
        expect(res.body).toMatchObject({ error: { code: 'upstream_error' } });
        expect(await balance(org.apiKey)).toEqual(new Decimal('10'));
      },
    );

    it.each(['[[error-event:mid:server]]', '[[malformed:mid]]'])(
      'ends a stream broken by %s after output with its usage and an error event, charged for what it relayed',
      async (marker) => {
        const org = await seedOrganization(target().api, target().adminToken, '10.00');
        const res = await chat(org.apiKey, wire, `one two three ${marker}`, true);
        expect(res.status).toBe(200);
        const data = sseData(res.text);
        expect(data).not.toContain('[DONE]');
        expect(JSON.parse(data.at(-1) as string)).toMatchObject({ error: { code: 'upstream_error' } });
        const told = JSON.parse(data.at(-2) as string);
        expect(told).toMatchObject({ choices: [], usage: { completion_tokens: 1 } });
        await expectEventually(async () =>
          expect((await balance(org.apiKey)).toNumber()).toBeCloseTo(10 - told.usage.cost_rub, 8),
        );
      },
    );

    it('answers a plain chat broken off after output 502, at no cost', async () => {
      const org = await seedOrganization(target().api, target().adminToken, '10.00');
      const res = await chat(org.apiKey, wire, 'one two three [[error-event:mid:overloaded]]', false);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: { code: 'upstream_error' } });
      await expectEventually(async () => {
        const list = await http('GET', `${target().api}/v1/history/generations`, { token: org.apiKey });
        expect(list.body.items).toMatchObject([{ status: 'failed', cost: '0.00000000' }]);
      });
      expect(await balance(org.apiKey)).toEqual(new Decimal('10'));
    });
  });

  it('keeps serving after every fault', async () => {
    const org = await seedOrganization(target().api, target().adminToken, '10.00');
    const res = await chat(org.apiKey, 'anthropic', 'still here', false);
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('still here');
    expect(target().reader.child.exitCode).toBeNull();
  });
}

describe('provider stream faults (embedded app)', () => {
  let gateway: EmbeddedGateway;
  beforeAll(async () => {
    gateway = await startEmbeddedGateway('stream-faults');
  }, 120_000);
  afterAll(() => gateway?.stop());

  providerStreamFaults(() => ({ api: gateway.api, adminToken: gateway.adminToken, reader: gateway.app }));
});

describe('provider stream faults (distributed mode)', () => {
  const stack = new DistributedStack({
    database: 'e2e_stream_faults',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'e2e-jwt-secret-0123456789',
  });
  beforeAll(() => stack.start(), 120_000);
  afterAll(() => stack.stop());

  providerStreamFaults(() => ({
    api: stack.api,
    adminToken: ADMIN_TOKEN,
    reader: stack.apps.get('inference') as AppProcess,
  }));
});
