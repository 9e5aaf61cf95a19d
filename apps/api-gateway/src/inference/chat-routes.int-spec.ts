import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { join } from 'node:path';
import { INFERENCE_QUEUE, InferenceEnv, InferenceModule } from '@gw/app-inference';
import { createMockUpstreamApp } from '@gw/app-mock-upstream';
import { type ApiKeyPrincipal, BillingEvents, type GenerationFinishedEvent } from '@gw/contracts';
import { startService, type TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  apiKeyPrincipal,
  createTestDatabase,
  expectEventually,
  POOR_ORGANIZATION,
  silentLogger,
  standInBilling,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { ApiGatewayEnv } from '../api-gateway.module';
import { startGatewayWithCredentials } from '../../test/gateway-with-credentials';

/** Test bodies are asserted field by field, so they are read untyped. */
const loose = (value: unknown): any => value;

describe('gateway chat and model routes over HTTP, NATS, inference and mock-upstream', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let upstream: INestApplication;
  let billing: INestMicroservice;
  let inference: INestMicroservice;
  let gateway: INestApplication;
  let closeEvents: () => Promise<void>;
  let baseUrl: string;
  const events = new Map<string, GenerationFinishedEvent>();
  const apiKey = apiKeyPrincipal({ apiKeyName: 'k' });
  const poor: ApiKeyPrincipal = { ...apiKey, organizationId: POOR_ORGANIZATION };

  const post = (path: string, body: unknown, token = 'key-token') =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const dataLines = (text: string) =>
    text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice('data: '.length));

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('gateway_chat'), startTestNats()]);
    upstream = await createMockUpstreamApp(silentLogger);
    await upstream.listen(0, '127.0.0.1');
    const upstreamPort = (upstream.getHttpServer().address() as { port: number }).port;
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    billing = await startService(standInBilling(), transport, 'billing', silentLogger);
    const env = Object.assign(new InferenceEnv(), {
      DATABASE_URL: db.url,
      MOCK_UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}`,
      CATALOGUE_FILE: join(__dirname, '../../../../config/catalogue.demo.json'),
    });
    inference = await startService(
      InferenceModule.register({ env, transport }),
      transport,
      INFERENCE_QUEUE,
      silentLogger,
    );
    const gatewayEnv = Object.assign(new ApiGatewayEnv(), {
      NATS_URL: nats.url,
      JWT_SECRET: 'chat-routes-spec-jwt-secret',
      ADMIN_TOKEN: 'chat-routes-spec-admin-token',
    });
    ({ gateway, baseUrl } = await startGatewayWithCredentials(gatewayEnv, transport, {
      'key-token': apiKey,
      'poor-token': poor,
    }));
    const connection = await connectTestTransport(transport);
    await connection.events.subscribe(BillingEvents.generationFinished, 'test-billing', async (event) => {
      events.set(event.generationId, event);
    });
    closeEvents = () => connection.close();
  });

  afterAll(async () => {
    await closeEvents?.();
    await gateway?.close();
    await inference?.close();
    await billing?.close();
    await upstream?.close();
    await db?.drop();
    await nats?.stop();
  });

  it('serves GET /api/v1/models without credentials', async () => {
    const response = await fetch(`${baseUrl}/v1/models`);
    expect(response.status).toBe(200);
    const body = await response.json().then(loose);
    expect(body.data.find((m: { id: string }) => m.id === 'demo/chat')).toMatchObject({
      type: 'chat',
      top_provider: { is_moderated: false },
    });
  });

  it.each(['/v1/chat/completions', '/v2/chat/completions'])(
    'answers POST %s with 200 and the completion',
    async (path) => {
      const response = await post(path, {
        model: 'demo/chat',
        messages: [{ role: 'user', content: 'hi there' }],
      });
      expect(response.status).toBe(200);
      expect(await response.json().then(loose)).toMatchObject({
        object: 'chat.completion',
        model: 'demo/chat',
        provider: 'Mock Alpha',
        choices: [{ message: { content: 'hi there' } }],
      });
    },
  );

  it('streams Server-Sent Events ending with [DONE]', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      stream: true,
      messages: [{ role: 'user', content: 'a b c' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const data = dataLines(await response.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('a b c');
    expect(chunks.at(-1).usage).toMatchObject({
      prompt_tokens: 7,
      completion_tokens: 3,
      cost_rub: expect.any(Number),
    });
  });

  it('answers an error before the first chunk as the JSON envelope with its status', async () => {
    const response = await post(
      '/v1/chat/completions',
      { model: 'demo/chat', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      'poor-token',
    );
    expect(response.status).toBe(402);
    expect(await response.json().then(loose)).toEqual({
      error: {
        message: 'Insufficient balance',
        type: 'insufficient_quota',
        code: 'insufficient_balance',
        param: null,
      },
    });
  });

  it('ends with an error event and no [DONE] when the provider breaks off after output', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      stream: true,
      provider: { only: ['Mock Alpha'] },
      messages: [{ role: 'user', content: 'one two [[drop]]' }],
    });
    const data = dataLines(await response.text());
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1) as string)).toMatchObject({
      error: { code: 'upstream_error', type: 'api_error' },
    });
  });

  it('sends nothing before the first provider produced output, so a stream still falls back', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat-fallback',
      stream: true,
      messages: [{ role: 'user', content: 'via fallback' }],
    });
    expect(response.status).toBe(200);
    const data = dataLines(await response.text());
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.slice(0, -1).map((d) => JSON.parse(d).provider)).toEqual(
      expect.arrayContaining(['Mock Alpha']),
    );
    expect(data.join('')).not.toContain('Mock Broken');
  });

  it('answers a stream whose every provider fails before output with the JSON envelope', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      stream: true,
      messages: [{ role: 'user', content: '[[fail:502]]' }],
    });
    expect(response.status).toBe(502);
    expect((await response.json().then(loose)).error.code).toBe('upstream_error');
  });

  it('cancels the generation over NATS when the client leaves a stream, charging what was produced', async () => {
    const abort = new AbortController();
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer key-token', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'demo/chat',
        stream: true,
        messages: [{ role: 'user', content: 'a b c d e f g h [[slow:250]]' }],
      }),
      signal: abort.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = JSON.parse(dataLines(first)[0]).id as string;
    abort.abort();
    const event = await expectEventually(() => {
      expect(events.get(id)).toBeDefined();
      return events.get(id) as GenerationFinishedEvent;
    });
    expect(event).toMatchObject({ status: 'cancelled', isCancelled: true });
    expect(event.usage?.completion_tokens).toBeLessThan(8);
    expect(Number(event.cost)).toBeGreaterThan(0);
  });

  it('answers 502 upstream_error when every provider fails', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      messages: [{ role: 'user', content: '[[fail:500]]' }],
    });
    expect(response.status).toBe(502);
    expect((await response.json().then(loose)).error.code).toBe('upstream_error');
  });

  it("answers every provider's overload 503 upstream_overloaded with its Retry-After", async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      messages: [{ role: 'user', content: '[[fail:503]] [[retry-after:3]]' }],
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('3');
    expect((await response.json().then(loose)).error.code).toBe('upstream_overloaded');
  });

  it('validates the body at the edge', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'demo/chat',
      prompt: 'x',
      messages: [{ role: 'user', content: 'y' }],
    });
    expect(response.status).toBe(400);
    expect((await response.json().then(loose)).error).toMatchObject({
      code: 'invalid_request',
      param: 'prompt',
    });
    const missing = await post('/v1/chat/completions', { model: 'demo/chat' });
    expect((await missing.json().then(loose)).error).toMatchObject({
      message: 'Exactly one of messages or prompt is required',
      param: 'messages',
    });
  });

  it('requires credentials for chat', async () => {
    const response = await post('/v1/chat/completions', { model: 'demo/chat', prompt: 'x' }, 'nope');
    expect(response.status).toBe(401);
  });
});
