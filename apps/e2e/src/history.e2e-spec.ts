import { expectEventually, freePort } from '@gw/testing';
import Decimal from 'decimal.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, startApp } from './support/app-process';
import { http, seedOrganization, type SeededOrganization } from './support/gateway-http';
import { removeEmbeddedData } from './support/embedded-data';

interface Item {
  id: string;
  model: string;
  modelDisplayName: string;
  requestType: string;
  provider: string | null;
  status: string;
  cost: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  generationTimeMs: number | null;
  createdAt: string;
  apiKeyName: string | null;
  apiKeyShort: string | null;
}
interface Page {
  items: Item[];
  meta: { page: number; limit: number; total: number; totalPages: number };
  error?: { type: string; code: string; message: string; param: string | null };
}

/** The history API over HTTP against the built embedded app: every filter, sort and refusal of the interface. */
describe('history and spending limits over HTTP (embedded)', () => {
  let dataDir: string;
  let app: AppProcess;
  let api: string;
  let adminToken: string;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let jwt: string;
  let otherJwt: string;
  let firstKeyId: string;
  let second: { id: string; key: string; short: string };
  const firstKeyChats: string[] = [];
  const secondKeyChats: string[] = [];
  let failedChat: string;

  const chat = (key: string, content: string) =>
    http('POST', `${api}/v1/chat/completions`, {
      token: key,
      body: { model: 'demo/chat', messages: [{ role: 'user', content }] },
    });
  const login = async (who: SeededOrganization) =>
    (
      await http('POST', `${api}/auth/login`, {
        body: { email: who.email, password: who.password, organizationId: who.organizationId },
      })
    ).body.access_token as string;
  const find = (items: Item[], id: string): Item => {
    const item = items.find((i) => i.id === id);
    expect(item).toBeDefined();
    return item as Item;
  };
  const list = (token: string, query = '') =>
    http<Page>('GET', `${api}/v1/history/generations${query}`, { token });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-history-'));
    const port = await freePort();
    app = startApp('embedded', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      SYNC_WAIT_MS: '5000',
    });
    [, adminToken] = await app.waitFor(/Admin token\s+(\S+)/, 90_000);
    api = `http://127.0.0.1:${port}/api`;
    await app.waitFor(/curl -s \S+\/v1\/history\/generations.*\n/);
    [org, other] = await Promise.all([
      seedOrganization(api, adminToken, '100.00'),
      seedOrganization(api, adminToken, '100.00'),
    ]);
    [jwt, otherJwt] = await Promise.all([login(org), login(other)]);
    second = (
      await http('POST', `${api}/admin/organizations/${org.organizationId}/api-keys`, {
        token: adminToken,
        body: { name: 'second key' },
      })
    ).body;
    firstKeyId = (await http('GET', `${api}/v1/console/api-keys`, { token: jwt })).body.data.find(
      (k: { name: string }) => k.name === 'e2e',
    ).id;
    // Prompts of growing length give growing costs, so the cost sort has something to order.
    for (const words of [1, 8, 3]) {
      const res = await chat(org.apiKey, 'word '.repeat(words * 10));
      expect(res.status).toBe(200);
      firstKeyChats.push(res.body.id);
    }
    for (const words of [2, 5]) {
      const res = await chat(second.key, 'other '.repeat(words * 10));
      expect(res.status).toBe(200);
      secondKeyChats.push(res.body.id);
    }
    const failed = await chat(org.apiKey, '[[fail:502]] this one fails');
    expect(failed.status).toBeGreaterThanOrEqual(500);
    await chat(other.apiKey, 'the other organization');
    await expectEventually(async () => expect((await list(jwt)).body.meta.total).toBe(6), {
      timeoutMs: 15_000,
    });
    failedChat = (await list(jwt, '?status=failed')).body.items[0].id;
  }, 150_000);

  afterAll(async () => {
    await app?.stop();
    removeEmbeddedData(dataDir);
  });

  it("lists the organization's generations to a JWT, newest first, with every item field", async () => {
    const res = await list(jwt);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, limit: 20, total: 6, totalPages: 1 });
    const createdAt = res.body.items.map((i) => i.createdAt);
    expect([...createdAt].sort().reverse()).toEqual(createdAt);
    const item = find(res.body.items, firstKeyChats[0]);
    expect(item).toEqual({
      id: firstKeyChats[0],
      model: 'demo/chat',
      modelDisplayName: expect.any(String),
      requestType: 'chat',
      provider: expect.any(String),
      status: 'completed',
      cost: expect.stringMatching(/^\d+\.\d{8}$/),
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
      generationTimeMs: expect.any(Number),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      apiKeyName: 'e2e',
      apiKeyShort: org.apiKey.slice(-6),
    });
    expect(new Decimal(item.cost).greaterThan(0)).toBe(true);
    const failed = find(res.body.items, failedChat);
    expect(failed).toMatchObject({ status: 'failed', cost: '0.00000000', usage: null });
  });

  it('shows an API key only its own generations, without the key name', async () => {
    const own = await list(second.key);
    expect(own.body.items.map((i) => i.id).sort()).toEqual([...secondKeyChats].sort());
    for (const item of own.body.items)
      expect(item).toMatchObject({ apiKeyName: null, apiKeyShort: second.short });
    expect((await list(org.apiKey)).body.meta.total).toBe(4);
    const foreign = await http('GET', `${api}/v1/history/generations/${firstKeyChats[0]}`, {
      token: second.key,
    });
    expect(foreign.status).toBe(404);
  });

  it('pages with page and limit and reports total and totalPages', async () => {
    const all = (await list(jwt, '?limit=100')).body.items.map((i) => i.id);
    const second = await list(jwt, '?page=2&limit=4');
    expect(second.body.meta).toEqual({ page: 2, limit: 4, total: 6, totalPages: 2 });
    expect(second.body.items.map((i) => i.id)).toEqual(all.slice(4, 6));
    const beyond = await list(jwt, '?page=3&limit=4');
    expect(beyond.body.items).toEqual([]);
    expect((await list(jwt, '?limit=1')).body.meta).toEqual({ page: 1, limit: 1, total: 6, totalPages: 6 });
    expect((await list(jwt, '?limit=100')).status).toBe(200);
  });

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1.5', 'limit'],
    ['dateFrom=yesterday', 'dateFrom'],
    ['dateTo=2026-13-01', 'dateTo'],
    ['requestType=fax', 'requestType'],
    ['status=cancelled', 'status'],
    ['sortBy=cost', 'sortBy'],
    ['sortOrder=up', 'sortOrder'],
    ['apiKeyId=not-a-uuid', 'apiKeyId'],
    ['withoutApiKey=maybe', 'withoutApiKey'],
    ['unknown=1', 'unknown'],
  ])('refuses %s with 400 naming the parameter', async (query, param) => {
    const res = await list(jwt, `?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { type: 'invalid_request_error', param } });
  });

  it('filters by dateFrom and dateTo, a bare dateTo covering its whole UTC day', async () => {
    const now = Date.now();
    const hourAgo = new Date(now - 3_600_000).toISOString();
    const today = new Date(now).toISOString().slice(0, 10);
    const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
    expect((await list(jwt, `?dateFrom=${hourAgo}`)).body.meta.total).toBe(6);
    expect((await list(jwt, `?dateTo=${today}`)).body.meta.total).toBe(6);
    expect((await list(jwt, `?dateTo=${yesterday}`)).body.meta.total).toBe(0);
    expect((await list(jwt, `?dateFrom=${new Date(now + 3_600_000).toISOString()}`)).body.meta.total).toBe(0);
    const items = (await list(jwt, '?sortOrder=asc')).body.items;
    const middle = items[2].createdAt;
    const upToMiddle = await list(jwt, `?dateFrom=${items[0].createdAt}&dateTo=${middle}`);
    expect(upToMiddle.body.items.every((i) => i.createdAt <= middle)).toBe(true);
    expect(upToMiddle.body.meta.total).toBeGreaterThanOrEqual(3);
    const inverted = await list(
      jwt,
      `?dateFrom=${today}&dateTo=${new Date(now - 2 * 86_400_000).toISOString().slice(0, 10)}`,
    );
    expect(inverted.status).toBe(400);
    expect(inverted.body.error?.param).toBe('dateFrom');
  });

  it('filters by requestType and status', async () => {
    expect((await list(jwt, '?requestType=chat')).body.meta.total).toBe(6);
    for (const type of ['image', 'video', 'audio']) {
      expect((await list(jwt, `?requestType=${type}`)).body.meta.total).toBe(0);
    }
    expect((await list(jwt, '?status=completed')).body.items.map((i) => i.status)).toEqual(
      Array(5).fill('completed'),
    );
    expect((await list(jwt, '?status=failed')).body.items.map((i) => i.id)).toEqual([failedChat]);
    expect((await list(jwt, '?status=pending')).body.meta.total).toBe(0);
    expect((await list(jwt, '?status=completed&requestType=chat&limit=2')).body.meta).toMatchObject({
      total: 5,
      totalPages: 3,
    });
  });

  it('filters by apiKeyId and withoutApiKey with a JWT, and refuses both to an API key with 403', async () => {
    const bySecond = await list(jwt, `?apiKeyId=${second.id}`);
    expect(bySecond.body.items.map((i) => i.id).sort()).toEqual([...secondKeyChats].sort());
    expect(bySecond.body.items.every((i) => i.apiKeyName === 'second key')).toBe(true);
    expect((await list(jwt, `?apiKeyId=${firstKeyId}`)).body.meta.total).toBe(4);
    expect((await list(jwt, '?withoutApiKey=true')).body.meta.total).toBe(0);
    expect((await list(jwt, '?withoutApiKey=false')).body.meta.total).toBe(6);
    const forbiddenKey = await list(org.apiKey, `?apiKeyId=${firstKeyId}`);
    expect(forbiddenKey.status).toBe(403);
    expect(forbiddenKey.body.error).toMatchObject({ type: 'permission_error', param: 'apiKeyId' });
    const forbiddenWithout = await list(org.apiKey, '?withoutApiKey=true');
    expect(forbiddenWithout.status).toBe(403);
    expect(forbiddenWithout.body.error?.param).toBe('withoutApiKey');
  });

  it.each([
    ['createdAt', 'asc'],
    ['createdAt', 'desc'],
    ['clientCost', 'asc'],
    ['clientCost', 'desc'],
  ] as const)('sorts by %s %s', async (sortBy, sortOrder) => {
    const items = (await list(jwt, `?sortBy=${sortBy}&sortOrder=${sortOrder}`)).body.items;
    expect(items).toHaveLength(6);
    const keys = items.map((i) =>
      sortBy === 'createdAt' ? new Date(i.createdAt).getTime() : new Decimal(i.cost).toNumber(),
    );
    const ordered = [...keys].sort((a, b) => (sortOrder === 'asc' ? a - b : b - a));
    expect(keys).toEqual(ordered);
    if (sortBy === 'clientCost') expect(new Set(keys).size).toBeGreaterThan(3);
  });

  it("answers the detail of the organization's generation and 404 for another organization's", async () => {
    const detail = await http('GET', `${api}/v1/history/generations/${firstKeyChats[1]}`, { token: jwt });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: firstKeyChats[1],
      organizationId: org.organizationId,
      apiKeyId: firstKeyId,
      unifiedModelId: 'demo/chat',
      requestType: 'chat',
      apiType: 'chat_completions',
      responseMode: 'sync',
      status: 'completed',
      finishReason: 'stop',
      clientCost: expect.stringMatching(/^\d+\.\d{8}$/),
      isCancelled: false,
      attemptsCount: expect.any(Number),
    });
    for (const token of [otherJwt, other.apiKey]) {
      const foreign = await http('GET', `${api}/v1/history/generations/${firstKeyChats[1]}`, { token });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.type).toBe('not_found_error');
    }
    expect((await list(otherJwt)).body.meta.total).toBe(1);
  });

  it('sets spending limits from the console and the operator API, and refuses a chat over the limit with 402', async () => {
    const limits = [
      { period: 'day', amount: '0.00000100' },
      { period: 'total', amount: '100.00' },
    ];
    const set = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: jwt,
      body: { limits },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      apiKeyId: second.id,
      limits: [
        { period: 'day', amount: '0.00000100' },
        { period: 'total', amount: '100.00000000' },
      ],
    });
    const listed = (await http('GET', `${api}/v1/console/api-keys`, { token: jwt })).body.data.find(
      (k: { id: string }) => k.id === second.id,
    );
    expect(listed.limit).toEqual({ period: 'day', amount: '0.00000100' });
    const refused = await chat(second.key, 'this costs more than the day allows');
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'spending_limit_exceeded', type: 'insufficient_quota' });
    expect(refused.body.error.message).toContain('day limit');

    const cleared = await http(
      'PUT',
      `${api}/admin/organizations/${org.organizationId}/api-keys/${second.id}/limits`,
      {
        token: adminToken,
        body: { limits: [] },
      },
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ apiKeyId: second.id, limits: [] });
    expect((await chat(second.key, 'allowed again')).status).toBe(200);

    const created = await http('POST', `${api}/v1/console/api-keys`, {
      token: jwt,
      body: { name: 'born limited', limits: [{ period: 'month', amount: '0' }] },
    });
    expect(created.status).toBe(201);
    expect((await chat(created.body.key, 'no budget')).body.error.code).toBe('spending_limit_exceeded');
  });

  it('refuses bad limits with 400 naming the field, other organizations with 404 and API keys with 403', async () => {
    const bad = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: jwt,
      body: { limits: [{ period: 'year', amount: '1' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('limits[0].period');
    const twice = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: jwt,
      body: {
        limits: [
          { period: 'day', amount: '1' },
          { period: 'day', amount: '2' },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.param).toBe('limits[1].period');
    const negative = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: jwt,
      body: { limits: [{ period: 'day', amount: '-1' }] },
    });
    expect(negative.body.error.param).toBe('limits[0].amount');
    const foreign = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: otherJwt,
      body: { limits: [] },
    });
    expect(foreign.status).toBe(404);
    const withKey = await http('PUT', `${api}/v1/console/api-keys/${second.id}/limits`, {
      token: org.apiKey,
      body: { limits: [] },
    });
    expect(withKey.status).toBe(403);
  });
});
