import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AUTH_QUEUE, AuthEnv, AuthModule } from '@gw/app-auth';
import { BILLING_QUEUE, BillingEnv, BillingModule } from '@gw/app-billing';
import { BillingEvents, type GenerationFinishedEvent, type UserPrincipal } from '@gw/contracts';
import { JetStreamDurableEvents, startService, type TransportOptions } from '@gw/platform';
import {
  apiKeyPrincipal,
  createTestDatabase,
  expectEventually,
  generationFinishedEvent,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ApiGatewayEnv } from '../api-gateway.module';
import { startGatewayWithCredentials } from '../../test/gateway-with-credentials';

const ADMIN_TOKEN = 'admin-token-of-the-billing-routes-spec';

interface Reply {
  status: number;
  body: any;
}

describe('gateway billing routes over HTTP, NATS and the billing service', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let billing: INestMicroservice;
  let auth: INestMicroservice;
  let gateway: INestApplication;
  let publisher: JetStreamDurableEvents;
  let baseUrl: string;
  const org = randomUUID();
  const keyId = randomUUID();
  const user: UserPrincipal = { kind: 'user', organizationId: org, userId: randomUUID(), role: 'admin' };
  const apiKey = apiKeyPrincipal({ organizationId: org, apiKeyId: keyId, apiKeyName: 'prod' });

  async function call(
    method: string,
    path: string,
    token: string | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  }

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('gateway_billing'), startTestNats()]);
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    const billingEnv = Object.assign(new BillingEnv(), { DATABASE_URL: db.url, NATS_URL: nats.url });
    billing = await startService(
      BillingModule.register({ env: billingEnv, transport }),
      transport,
      BILLING_QUEUE,
      silentLogger,
    );
    // Auth knows which organizations exist; credits are refused for any other id.
    const authEnv = Object.assign(new AuthEnv(), {
      DATABASE_URL: db.url,
      JWT_SECRET: 'billing-routes-spec-jwt-secret',
    });
    auth = await startService(
      AuthModule.register({ env: authEnv, transport }),
      transport,
      AUTH_QUEUE,
      silentLogger,
    );
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    await sql.query(`INSERT INTO "auth"."organizations" ("id", "name") VALUES ($1, 'billing routes')`, [org]);
    await sql.end();
    const gatewayEnv = Object.assign(new ApiGatewayEnv(), {
      NATS_URL: nats.url,
      JWT_SECRET: 'billing-routes-spec-jwt-secret',
      ADMIN_TOKEN,
    });
    // Authentication is not under test here: fixed tokens stand for a console user and an API key.
    ({ gateway, baseUrl } = await startGatewayWithCredentials(gatewayEnv, transport, {
      'user-token': user,
      'key-token': apiKey,
    }));
    publisher = new JetStreamDurableEvents(nats.url);
  });

  afterAll(async () => {
    await publisher?.onApplicationShutdown();
    await gateway?.close();
    await billing?.close();
    await auth?.close();
    await db?.drop();
    await nats?.stop();
  });

  it('credits through the admin API with 200 and the new balance, once per Idempotency-Key', async () => {
    const path = `/admin/organizations/${org}/credits`;
    const first = await call(
      'POST',
      path,
      ADMIN_TOKEN,
      { amount: '100.00', reason: 'welcome' },
      { 'Idempotency-Key': 'k-1' },
    );
    expect(first).toEqual({ status: 200, body: { amount: '100.00000000' } });
    expect(await call('POST', path, ADMIN_TOKEN, { amount: '100.00' }, { 'Idempotency-Key': 'k-1' })).toEqual(
      first,
    );
    expect(await call('POST', path, ADMIN_TOKEN, { amount: '0.5' })).toEqual({
      status: 200,
      body: { amount: '100.50000000' },
    });
  });

  it('refuses a bad amount, an unknown field and a malformed organization id with 400 envelopes', async () => {
    const bad = await call('POST', `/admin/organizations/${org}/credits`, ADMIN_TOKEN, { amount: '-1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_request',
      param: 'amount',
    });
    expect(
      (await call('POST', `/admin/organizations/${org}/credits`, ADMIN_TOKEN, { amount: 100 })).status,
    ).toBe(400);
    expect(
      (await call('POST', `/admin/organizations/${org}/credits`, ADMIN_TOKEN, { amount: '1', note: 'x' }))
        .status,
    ).toBe(400);
    expect(
      (await call('POST', '/admin/organizations/not-a-uuid/credits', ADMIN_TOKEN, { amount: '1' })).body.error
        .param,
    ).toBe('orgId');
  });

  it('answers 404 for credits to an organization that does not exist, and opens no account for it', async () => {
    const stranger = randomUUID();
    const reply = await call('POST', `/admin/organizations/${stranger}/credits`, ADMIN_TOKEN, {
      amount: '5.00',
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({ code: 'not_found', param: 'orgId' });
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    const accounts = await sql.query(`SELECT 1 FROM "billing"."accounts" WHERE "organization_id" = $1`, [
      stranger,
    ]);
    await sql.end();
    expect(accounts.rowCount).toBe(0);
  });

  it('answers 409 when an Idempotency-Key is reused for another amount', async () => {
    const reply = await call(
      'POST',
      `/admin/organizations/${org}/credits`,
      ADMIN_TOKEN,
      { amount: '2' },
      { 'Idempotency-Key': 'k-1' },
    );
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('conflict');
  });

  it('keeps the admin API to the admin token', async () => {
    expect(
      (await call('POST', `/admin/organizations/${org}/credits`, 'user-token', { amount: '1' })).status,
    ).toBe(401);
  });

  it('answers the balance to a user and to an API key, and 401 without credentials', async () => {
    expect(await call('GET', '/v1/balance', 'user-token')).toEqual({
      status: 200,
      body: { amount: '100.50000000' },
    });
    expect(await call('GET', '/v1/balance', 'key-token')).toEqual({
      status: 200,
      body: { amount: '100.50000000' },
    });
    expect((await call('GET', '/v1/balance', null)).status).toBe(401);
  });

  it('documents the routes in Swagger with examples and error envelopes', () => {
    const document = SwaggerModule.createDocument(gateway, new DocumentBuilder().build());
    const credits = document.paths['/api/admin/organizations/{orgId}/credits']?.post;
    expect(Object.keys(credits?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '409']),
    );
    const list = document.paths['/api/v1/history/generations']?.get;
    expect(list?.parameters?.map((p) => ('name' in p ? p.name : ''))).toEqual(
      expect.arrayContaining([
        'page',
        'limit',
        'dateFrom',
        'dateTo',
        'requestType',
        'status',
        'apiKeyId',
        'withoutApiKey',
        'sortBy',
        'sortOrder',
      ]),
    );
    expect(document.paths['/api/v1/history/generations/{id}']?.get?.responses).toHaveProperty('404');
    expect(document.paths['/api/v1/balance']?.get?.responses).toHaveProperty('200');
    expect(JSON.stringify(document.components?.schemas?.['AddCreditsDto'])).toContain('100.00');
  });

  describe('history', () => {
    const event = (overrides: Partial<GenerationFinishedEvent>): GenerationFinishedEvent =>
      generationFinishedEvent(org, {
        apiKeyId: keyId,
        apiKeyName: 'prod',
        apiKeyShort: 'abc123',
        responseMode: 'stream',
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        cost: '0.25',
        generationTimeMs: 300,
        latencyMs: 40,
        ...overrides,
      });
    const withKey = event({ createdAt: '2026-11-20T10:00:00.000Z' });
    const withoutKey = event({
      apiKeyId: null,
      apiKeyName: null,
      apiKeyShort: null,
      requestType: 'image',
      cost: '1',
      createdAt: '2026-11-21T10:00:00.000Z',
    });

    beforeAll(async () => {
      await publisher.publish(BillingEvents.generationFinished, withKey, withKey.generationId);
      await publisher.publish(BillingEvents.generationFinished, withoutKey, withoutKey.generationId);
      await expectEventually(async () =>
        expect((await call('GET', '/v1/history/generations', 'user-token')).body.meta.total).toBe(2),
      );
    });

    it('lists with query strings turned into numbers and booleans', async () => {
      const page = await call(
        'GET',
        '/v1/history/generations?page=1&limit=1&sortBy=clientCost&sortOrder=asc',
        'user-token',
      );
      expect(page.status).toBe(200);
      expect(page.body.meta).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
      expect(page.body.items.map((i: { id: string }) => i.id)).toEqual([withKey.generationId]);
      const withoutApiKey = await call('GET', '/v1/history/generations?withoutApiKey=true', 'user-token');
      expect(withoutApiKey.body.items.map((i: { id: string }) => i.id)).toEqual([withoutKey.generationId]);
      const all = await call(
        'GET',
        '/v1/history/generations?withoutApiKey=false&dateFrom=2026-11-20&dateTo=2026-11-21',
        'user-token',
      );
      expect(all.body.meta.total).toBe(2);
    });

    it('refuses invalid query parameters with 400 naming the parameter', async () => {
      for (const [query, param] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['page=abc', 'page'],
        ['status=cancelled', 'status'],
        ['withoutApiKey=yes', 'withoutApiKey'],
        ['dateFrom=yesterday', 'dateFrom'],
        ['apiKeyId=123', 'apiKeyId'],
        ['unknown=1', 'unknown'],
      ]) {
        const reply = await call('GET', `/v1/history/generations?${query}`, 'user-token');
        expect({ query, status: reply.status, param: reply.body.error?.param }).toEqual({
          query,
          status: 400,
          param,
        });
      }
    });

    it('scopes an API key to its own generations and answers 403 to the JWT-only filters', async () => {
      const own = await call('GET', '/v1/history/generations', 'key-token');
      expect(own.body.items.map((i: { id: string }) => i.id)).toEqual([withKey.generationId]);
      const forbidden = await call('GET', `/v1/history/generations?apiKeyId=${keyId}`, 'key-token');
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error).toMatchObject({
        type: 'permission_error',
        code: 'forbidden',
        param: 'apiKeyId',
      });
      expect((await call('GET', '/v1/history/generations?withoutApiKey=false', 'key-token')).status).toBe(
        403,
      );
    });

    it('answers the detail, and 404 for a generation the caller may not see', async () => {
      const detail = await call('GET', `/v1/history/generations/${withKey.generationId}`, 'key-token');
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        id: withKey.generationId,
        clientCost: '0.25000000',
        responseMode: 'stream',
        isCancelled: false,
      });
      const hidden = await call('GET', `/v1/history/generations/${withoutKey.generationId}`, 'key-token');
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.type).toBe('not_found_error');
      expect(
        (await call('GET', `/v1/history/generations/${withoutKey.generationId}`, 'user-token')).status,
      ).toBe(200);
    });
  });
});
