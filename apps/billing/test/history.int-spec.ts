import {
  type ApiKeyPrincipal,
  BillingContracts,
  type GenerationFinishedEvent,
  type HistoryQuery,
  type Principal,
  type UserPrincipal,
} from '@gw/contracts';
import { expectEventually, generationFinishedEvent } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { BillingTestApp } from './billing-test-app';

describe('billing history over NATS and Postgres', () => {
  let app: BillingTestApp;
  const orgA = randomUUID();
  const orgB = randomUUID();
  const key1 = randomUUID();
  const key2 = randomUUID();
  const key3 = randomUUID();
  const user: UserPrincipal = { kind: 'user', organizationId: orgA, userId: randomUUID(), role: 'member' };
  const apiKey1: ApiKeyPrincipal = {
    kind: 'api_key',
    organizationId: orgA,
    apiKeyId: key1,
    apiKeyName: 'one',
    apiKeyShort: '111111',
    userId: null,
  };
  const keyOf = (id: string, name: string) => ({ apiKeyId: id, apiKeyName: name, apiKeyShort: id.slice(-6) });

  const g: Record<string, GenerationFinishedEvent> = {
    g1: generationFinishedEvent(orgA, {
      ...keyOf(key1, 'one'),
      requestType: 'chat',
      cost: '1.5',
      createdAt: '2026-11-01T10:00:00.000Z',
    }),
    g2: generationFinishedEvent(orgA, {
      ...keyOf(key1, 'one'),
      requestType: 'image',
      cost: '3',
      createdAt: '2026-11-02T10:00:00.000Z',
    }),
    g3: generationFinishedEvent(orgA, {
      ...keyOf(key2, 'two'),
      status: 'failed',
      finishReason: null,
      cost: '0',
      createdAt: '2026-11-03T10:00:00.000Z',
    }),
    g4: generationFinishedEvent(orgA, {
      requestType: 'embedding',
      apiType: 'embeddings',
      cost: '0.01',
      createdAt: '2026-11-04T10:00:00.000Z',
    }),
    g5: generationFinishedEvent(orgA, {
      ...keyOf(key2, 'two'),
      requestType: 'video',
      status: 'cancelled',
      cost: '2',
      createdAt: '2026-11-05T23:59:59.000Z',
    }),
    g6: generationFinishedEvent(orgA, {
      ...keyOf(key1, 'one'),
      requestType: 'audio',
      status: 'cancelled',
      finishReason: null,
      cost: '0',
      createdAt: '2026-11-06T00:00:00.000Z',
    }),
    g7: generationFinishedEvent(orgB, {
      ...keyOf(key3, 'three'),
      cost: '9',
      createdAt: '2026-11-03T12:00:00.000Z',
    }),
  };
  const idsOf = (name: keyof typeof g) => g[name].generationId;

  const list = (principal: Principal, query: Partial<HistoryQuery> = {}) =>
    app.rpc.request(BillingContracts.listHistory, {
      principal,
      query: { page: 1, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...query },
    });
  const listIds = async (principal: Principal, query: Partial<HistoryQuery> = {}) =>
    (await list(principal, query)).items.map(
      (item) => Object.entries(g).find(([, e]) => e.generationId === item.id)?.[0],
    );

  beforeAll(async () => {
    app = await BillingTestApp.start('billing_history');
    // Events without a reservation are charged at most what the balance has free.
    await app.credit(orgA, '100');
    await app.credit(orgB, '100');
    for (const event of Object.values(g)) await app.publish(event);
    await expectEventually(async () => expect(await app.count('billing.generations', [])).toBe(7));
  });

  afterAll(async () => {
    await app.stop();
  });

  it("lists the organization's generations to a user, newest first, with the interface's item fields", async () => {
    const page = await list(user);
    expect(page.meta).toEqual({ page: 1, limit: 20, total: 6, totalPages: 1 });
    expect(page.items.map((i) => i.id)).toEqual(['g6', 'g5', 'g4', 'g3', 'g2', 'g1'].map((n) => idsOf(n)));
    expect(page.items[4]).toEqual({
      id: idsOf('g2'),
      model: 'demo/chat',
      modelDisplayName: 'Demo Chat',
      requestType: 'image',
      provider: 'Mock Alpha',
      status: 'completed',
      cost: '3.00000000',
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
      generationTimeMs: 800,
      createdAt: '2026-11-02T10:00:00.000Z',
      apiKeyName: 'one',
      apiKeyShort: key1.slice(-6),
    });
  });

  it('lists cancelled generations as failed, whether they cost something or not', async () => {
    const items = (await list(user)).items;
    expect(items.find((i) => i.id === idsOf('g5'))?.status).toBe('failed');
    expect(items.find((i) => i.id === idsOf('g6'))?.status).toBe('failed');
  });

  it('pages with limit and page and reports the total', async () => {
    const second = await list(user, { limit: 4, page: 2 });
    expect(second.meta).toEqual({ page: 2, limit: 4, total: 6, totalPages: 2 });
    expect(second.items.map((i) => i.id)).toEqual([idsOf('g2'), idsOf('g1')]);
    const beyond = await list(user, { limit: 4, page: 3 });
    expect(beyond).toEqual({ items: [], meta: { page: 3, limit: 4, total: 6, totalPages: 2 } });
  });

  it('sorts by clientCost and by createdAt in either order', async () => {
    expect(await listIds(user, { sortBy: 'clientCost', sortOrder: 'asc' })).toEqual([
      'g3',
      'g6',
      'g4',
      'g1',
      'g5',
      'g2',
    ]);
    expect(await listIds(user, { sortBy: 'clientCost', sortOrder: 'desc' })).toEqual([
      'g2',
      'g5',
      'g1',
      'g4',
      'g6',
      'g3',
    ]);
    expect(await listIds(user, { sortOrder: 'asc' })).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
  });

  it('filters by request type (embeddings included) and by list status', async () => {
    expect(await listIds(user, { requestType: 'chat' })).toEqual(['g3', 'g1']);
    expect(await listIds(user, { requestType: 'embedding' })).toEqual(['g4']);
    expect(await listIds(user, { status: 'failed' })).toEqual(['g6', 'g5', 'g3']);
    expect(await listIds(user, { status: 'pending' })).toEqual([]);
  });

  it('filters by date range, a bare dateTo covering its whole day', async () => {
    expect(await listIds(user, { dateFrom: '2026-11-02T10:00:00Z', dateTo: '2026-11-04T10:00:00Z' })).toEqual(
      ['g4', 'g3', 'g2'],
    );
    expect(await listIds(user, { dateFrom: '2026-11-05', dateTo: '2026-11-05' })).toEqual(['g5']);
  });

  it('lets a user filter by API key or by the absence of one', async () => {
    expect(await listIds(user, { apiKeyId: key2 })).toEqual(['g5', 'g3']);
    expect(await listIds(user, { withoutApiKey: true })).toEqual(['g4']);
    expect(await listIds(user, { apiKeyId: key3 })).toEqual([]);
  });

  it('shows an API key only its own generations and refuses the JWT-only filters', async () => {
    expect(await listIds(apiKey1)).toEqual(['g6', 'g2', 'g1']);
    expect((await list(apiKey1)).meta.total).toBe(3);
    await expect(list(apiKey1, { apiKeyId: key2 })).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
      param: 'apiKeyId',
    });
    await expect(list(apiKey1, { withoutApiKey: true })).rejects.toMatchObject({
      code: 'forbidden',
      param: 'withoutApiKey',
    });
  });

  it('validates the query again on the service side', async () => {
    await expect(list(user, { limit: 101 })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'limit',
    });
    await expect(list(user, { page: 0 })).rejects.toMatchObject({ code: 'invalid_request', param: 'page' });
    await expect(list(user, { sortBy: 'cost' as HistoryQuery['sortBy'] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'sortBy',
    });
    await expect(list(user, { dateFrom: 'yesterday' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'dateFrom',
    });
    await expect(list(user, { extra: 1 } as Partial<HistoryQuery>)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it("answers the detail with the interface's fields", async () => {
    const detail = await app.rpc.request(BillingContracts.getHistory, { principal: user, id: idsOf('g5') });
    expect(detail).toEqual({
      id: idsOf('g5'),
      organizationId: orgA,
      apiKeyId: key2,
      unifiedModelId: 'demo/chat',
      requestType: 'video',
      apiType: 'chat_completions',
      responseMode: 'sync',
      status: 'cancelled',
      finishReason: 'stop',
      finalEndpointSlug: 'Mock Alpha',
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
      clientCost: '2.00000000',
      generationTimeMs: 800,
      latencyMs: 120,
      queueTimeMs: 0,
      isCancelled: true,
      createdAt: '2026-11-05T23:59:59.000Z',
      completedAt: g.g5.completedAt,
      attemptsCount: 1,
    });
  });

  it('stores every field of a finished event in its column, nulls and JSON included', async () => {
    const orgC = randomUUID();
    await app.credit(orgC, '10');
    const event = generationFinishedEvent(orgC, {
      ...keyOf(key3, 'three'),
      userId: randomUUID(),
      status: 'failed',
      finishReason: null,
      provider: null,
      usage: null,
      cost: '0',
      generationTimeMs: null,
      latencyMs: 35,
      queueTimeMs: 4,
      attemptsCount: 2,
      error: { code: 'upstream_error', message: 'The upstream provider failed (HTTP 500)' },
      createdAt: '2026-11-07T08:00:00.000Z',
      completedAt: '2026-11-07T08:00:01.500Z',
    });
    await app.publish(event);
    const stored = async () =>
      (await app.sql.query(`SELECT * FROM "billing"."generations" WHERE "id" = $1`, [event.generationId]))[0];
    await expectEventually(async () => expect(await stored()).toBeDefined());
    const { recorded_at: recordedAt, ...row } = await stored();
    expect(recordedAt).toBeInstanceOf(Date);
    expect(row).toEqual({
      id: event.generationId,
      organization_id: orgC,
      api_key_id: key3,
      api_key_name: 'three',
      api_key_short: key3.slice(-6),
      user_id: event.userId,
      model: 'demo/chat',
      request_type: 'chat',
      api_type: 'chat_completions',
      response_mode: 'sync',
      status: 'failed',
      list_status: 'failed',
      finish_reason: 'error',
      provider: null,
      usage: null,
      cost: '0.00000000',
      client_cost: '0.00000000',
      generation_time_ms: null,
      latency_ms: 35,
      queue_time_ms: 4,
      attempts_count: 2,
      is_cancelled: false,
      error: { code: 'upstream_error', message: 'The upstream provider failed (HTTP 500)' },
      created_at: new Date('2026-11-07T08:00:00.000Z'),
      completed_at: new Date('2026-11-07T08:00:01.500Z'),
    });
  });

  it('answers a page and its total from one snapshot while generations are being recorded', async () => {
    const orgD = randomUUID();
    const principal: UserPrincipal = { ...user, organizationId: orgD };
    // Rows land one commit at a time, as copies of g1 moved to another organization.
    let recording = true;
    const record = async () => {
      for (let i = 0; i < 400; i += 1) {
        await app.sql.query(
          `INSERT INTO "billing"."generations"
           SELECT (jsonb_populate_record(NULL::"billing"."generations",
                     to_jsonb(g) || jsonb_build_object('id', $1::text, 'organization_id', $2::text))).*
             FROM "billing"."generations" g WHERE g."id" = $3`,
          [`gen-${randomUUID()}`, orgD, idsOf('g1')],
        );
      }
      recording = false;
    };
    let pages = 0;
    const read = async () => {
      while (recording) {
        const page = await list(principal, { limit: 100 });
        expect(page.items).toHaveLength(Math.min(page.meta.total, 100));
        pages += 1;
      }
    };
    await Promise.all([record(), read(), read(), read()]);
    expect(pages).toBeGreaterThan(10);
  });

  it('answers a finish reason for every generation: the reported one, else the one its status implies', async () => {
    const finishReasonOf = async (name: keyof typeof g) =>
      (await app.rpc.request(BillingContracts.getHistory, { principal: user, id: idsOf(name) })).finishReason;
    // g3 failed and g6 was cancelled without a reported reason; g5 was cancelled after the provider finished.
    await expect(finishReasonOf('g3')).resolves.toBe('error');
    await expect(finishReasonOf('g6')).resolves.toBe('cancelled');
    await expect(finishReasonOf('g5')).resolves.toBe('stop');
    await expect(finishReasonOf('g1')).resolves.toBe('stop');
  });

  it("answers not_found for another organization's or another key's generation", async () => {
    const get = (principal: Principal, id: string) =>
      app.rpc.request(BillingContracts.getHistory, { principal, id });
    await expect(get(user, idsOf('g7'))).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await expect(get(apiKey1, idsOf('g3'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(get(apiKey1, idsOf('g4'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(get(apiKey1, idsOf('g1'))).resolves.toMatchObject({ id: idsOf('g1'), apiKeyId: key1 });
    await expect(get(user, 'gen_unknown')).rejects.toMatchObject({ code: 'not_found' });
  });
});
