import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, seedOrganization, type SeededOrganization, sseData } from './support/gateway-http';

/**
 * Chat as a client meets it over HTTP, against the built embedded app: the model alias, routing
 * and fallbacks, and what each kind of failure costs. Every test that looks at money or history
 * gets an organization of its own.
 */
describe('chat completions over HTTP (embedded app)', () => {
  let gateway: EmbeddedGateway;
  let api: string;
  let adminToken: string;
  let shared: SeededOrganization;

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('chat-e2e');
    api = gateway.api;
    adminToken = gateway.adminToken;
    shared = await seedOrganization(api, adminToken, '100.00');
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  const chat = (key: string, body: Record<string, unknown>) =>
    http('POST', `${api}/v1/chat/completions`, { token: key, body });
  const user = (text: string) => [{ role: 'user', content: text }];
  const balance = async (key: string) =>
    new Decimal((await http('GET', `${api}/v1/balance`, { token: key })).body.amount);
  const detail = (key: string, id: string) =>
    expectEventually(async () => {
      const res = await http('GET', `${api}/v1/history/generations/${id}`, { token: key });
      expect(res.status).toBe(200);
      return res.body;
    });
  /** The one generation of an organization that has made exactly one request. */
  const onlyGeneration = (key: string) =>
    expectEventually(async () => {
      const res = await http('GET', `${api}/v1/history/generations`, { token: key });
      expect(res.body.items).toHaveLength(1);
      return detail(key, res.body.items[0].id);
    });

  describe('the model alias', () => {
    it.each([
      ['an unknown key', { model: 'demo/chat@temperature=1' }],
      ['a repeated key', { model: 'demo/chat@provider=Mock Alpha&provider=Mock Beta' }],
      ['an empty value', { model: 'demo/chat@reasoning_effort=' }],
      ['nothing after @', { model: 'demo/chat@' }],
      ['a key without =', { model: 'demo/chat@allow_fallbacks' }],
      ['a value containing =', { model: 'demo/chat@provider=Mock=Alpha' }],
      ['a value outside the allowed ones', { model: 'demo/chat@allow_fallbacks=no' }],
      [
        'provider= with a provider object in the body',
        { model: 'demo/chat@provider=Mock Beta', provider: { ignore: ['Mock Alpha'] } },
      ],
      [
        'reasoning_effort= with reasoning.effort',
        { model: 'demo/chat@reasoning_effort=low', reasoning: { effort: 'low' } },
      ],
      [
        'reasoning_effort= with the top-level reasoning_effort',
        { model: 'demo/chat@reasoning_effort=low', reasoning_effort: 'high' },
      ],
      [
        'allow_fallbacks= with provider.allow_fallbacks',
        { model: 'demo/chat@allow_fallbacks=true', provider: { allow_fallbacks: true } },
      ],
    ])('answers 400 on model for %s', async (_label, body) => {
      const res = await chat(shared.apiKey, { ...body, messages: user('hi') });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_request',
        param: 'model',
      });
    });

    it('answers 400 on reasoning.effort for an effort the model does not support', async () => {
      const res = await chat(shared.apiKey, {
        model: 'demo/chat@reasoning_effort=xhigh',
        messages: user('hi'),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'reasoning.effort' });
    });

    it.each([
      ['the alias', { model: 'demo/chat@provider=Mock Beta&reasoning_effort=high' }],
      ['provider.only', { model: 'demo/chat', provider: { only: ['Mock Beta'] } }],
    ])('selects Mock Beta by %s and answers the canonical model id', async (_label, body) => {
      const res = await chat(shared.apiKey, { ...body, messages: user('which one') });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        model: 'demo/chat',
        provider: 'Mock Beta',
        choices: [{ message: { content: 'which one' } }],
      });
    });
  });

  describe('routing and fallbacks', () => {
    it('answers demo/chat-fallback via Mock Alpha after Mock Broken failed', async () => {
      const org = await seedOrganization(api, adminToken, '10.00');
      const res = await chat(org.apiKey, { model: 'demo/chat-fallback', messages: user('fell back') });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: 'demo/chat-fallback', provider: 'Mock Alpha' });
      expect(await detail(org.apiKey, res.body.id)).toMatchObject({
        status: 'completed',
        finalEndpointSlug: 'Mock Alpha',
        attemptsCount: 2,
      });
    });

    it.each([
      ['the alias', { model: 'demo/chat-fallback@allow_fallbacks=false' }],
      ['the body', { model: 'demo/chat-fallback', provider: { allow_fallbacks: false } }],
    ])('answers 502 when fallbacks are off by %s', async (_label, body) => {
      const res = await chat(shared.apiKey, { ...body, messages: user('no second chance') });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
    });

    it('answers 503 no_provider_available when no provider fits max_price', async () => {
      const res = await chat(shared.apiKey, {
        model: 'demo/chat',
        provider: { max_price: { prompt: '1' } },
        messages: user('too cheap'),
      });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'no_provider_available' });
    });
  });

  describe('what failures cost', () => {
    it('charges nothing when every provider fails: 502, a failed history entry costing 0, the balance unchanged', async () => {
      const org = await seedOrganization(api, adminToken, '10.00');
      const before = await balance(org.apiKey);
      const res = await chat(org.apiKey, { model: 'demo/chat', messages: user('boom [[fail:502]]') });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
      const generation = await onlyGeneration(org.apiKey);
      expect(generation).toMatchObject({ status: 'failed', attemptsCount: 2 });
      expect(new Decimal(generation.clientCost).isZero()).toBe(true);
      const listed = (await http('GET', `${api}/v1/history/generations`, { token: org.apiKey })).body
        .items[0];
      expect(listed.status).toBe('failed');
      expect(new Decimal(listed.cost).isZero()).toBe(true);
      expect((await balance(org.apiKey)).toString()).toBe(before.toString());
    });

    it('bills what a stream produced before the provider cut it: its usage and cost, an error event, no [DONE]', async () => {
      const org = await seedOrganization(api, adminToken, '10.00');
      const before = await balance(org.apiKey);
      const res = await chat(org.apiKey, {
        model: 'demo/chat',
        stream: true,
        provider: { only: ['Mock Alpha'] },
        messages: user('one two three [[drop]]'),
      });
      expect(res.status).toBe(200);
      const data = sseData(res.text);
      expect(data).not.toContain('[DONE]');
      expect(JSON.parse(data.at(-1) as string).error).toMatchObject({
        code: 'upstream_error',
        type: 'api_error',
      });
      const id = JSON.parse(data[0]).id as string;
      const generation = await detail(org.apiKey, id);
      expect(generation).toMatchObject({ status: 'failed', isCancelled: false });
      expect(new Decimal(generation.clientCost).greaterThan(0)).toBe(true);
      const told = JSON.parse(data.at(-2) as string);
      expect(told).toMatchObject({ id, object: 'chat.completion.chunk', choices: [] });
      expect(told.usage.cost_rub).toBeCloseTo(new Decimal(generation.clientCost).toNumber(), 8);
      await expectEventually(async () =>
        expect((await balance(org.apiKey)).toString()).toBe(before.minus(generation.clientCost).toString()),
      );
    });

    it('marks a stream the client abandoned before output as cancelled', async () => {
      const org = await seedOrganization(api, adminToken, '10.00');
      const abort = new AbortController();
      const pending = fetch(`${api}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'demo/chat',
          stream: true,
          messages: user('[[delay:3000]] never mind'),
        }),
        signal: abort.signal,
      }).catch((err: unknown) => err);
      await new Promise((resolve) => setTimeout(resolve, 500));
      abort.abort();
      expect(await pending).toMatchObject({ name: 'AbortError' });
      const generation = await onlyGeneration(org.apiKey);
      expect(generation.isCancelled).toBe(true);
      expect(new Decimal(generation.clientCost).isZero()).toBe(true);
    });

    it('marks a stream the client abandoned mid-answer as cancelled and bills what was produced', async () => {
      const org = await seedOrganization(api, adminToken, '10.00');
      const before = await balance(org.apiKey);
      const abort = new AbortController();
      const response = await fetch(`${api}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'demo/chat',
          stream: true,
          messages: user('a b c d e f g h [[slow:300]]'),
        }),
        signal: abort.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const id = JSON.parse(sseData(new TextDecoder().decode((await reader.read()).value))[0]).id as string;
      abort.abort();
      const generation = await detail(org.apiKey, id);
      expect(generation).toMatchObject({ isCancelled: true, finalEndpointSlug: 'Mock Alpha' });
      expect(generation.usage.completion_tokens).toBeLessThan(8);
      expect(new Decimal(generation.clientCost).greaterThan(0)).toBe(true);
      await expectEventually(async () =>
        expect((await balance(org.apiKey)).toString()).toBe(before.minus(generation.clientCost).toString()),
      );
    });
  });

  it('costs the same streamed and not streamed', async () => {
    for (const provider of ['Mock Alpha', 'Mock Beta']) {
      const body = {
        model: 'demo/chat',
        provider: { only: [provider] },
        messages: [{ role: 'system', content: 'be exact' }, ...user('the same words twice')],
      };
      const plain = await chat(shared.apiKey, body);
      const streamed = await chat(shared.apiKey, { ...body, stream: true });
      const chunks = sseData(streamed.text);
      expect(chunks.at(-1)).toBe('[DONE]');
      const last = JSON.parse(chunks.at(-2) as string);
      expect(last.usage).toEqual(plain.body.usage);
      const [a, b] = await Promise.all([
        detail(shared.apiKey, plain.body.id),
        detail(shared.apiKey, last.id),
      ]);
      expect(a.clientCost).toBe(b.clientCost);
      expect(new Decimal(a.clientCost).greaterThan(0)).toBe(true);
    }
  });
});
