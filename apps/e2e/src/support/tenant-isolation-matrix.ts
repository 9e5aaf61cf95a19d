import { randomBytes, randomUUID } from 'node:crypto';
import { http, type HttpResult, seedOrganization, type SeededOrganization } from './gateway-http';
import { balanceOf, finalGeneration, type Generation, historyDetail } from './media-api';
import { download } from './media-files';

// Issue 24 §3's matrix, run by tenant-isolation.e2e-spec.ts on the embedded mode and by
// tenant-isolation-distributed.e2e-spec.ts on the distributed one: the cases live here once.

/** The gateway the suite talks to; the spec that starts it stops it. */
export interface IsolationTarget {
  /** `http://127.0.0.1:<port>/api` */
  api: string;
  adminToken: string;
}

/** A 5 s mock video job is seen done within a second of its end (the media service's settings). */
export const MEDIA_ENV = { MEDIA_POLL_FIRST_MS: '250', MEDIA_POLL_MAX_MS: '1000' };

const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(3000)]);

/** One id-taking request: its method, its path with `{id}` where the id goes, and its body. */
export interface IdRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/** The generation ids of every kind a client can hold: `gen-` and a UUID (chat, media and operations alike). */
const unknownGenerationId = () => `gen-${randomUUID()}`;

/** A 404's body with the id it names taken out, so two answers for two ids compare as the same text. */
function withoutId(result: HttpResult, id: string): string {
  return result.text.split(id).join('{id}');
}

/** A record without its file urls, which are signed afresh whenever it is read. */
function unsigned(generation: Generation): Generation {
  const strip = (file: Record<string, unknown>) => ({ ...file, url: expect.any(String) });
  const data = generation.data;
  return { ...generation, data: Array.isArray(data) ? data.map(strip) : data ? strip(data) : data };
}

/**
 * The operator API's routes that take ids (`{orgId}` and the others filled from the organization
 * tried): the admin token reaches them, no tenant's key or console JWT does.
 */
const OPERATOR_ROUTES: IdRoute[] = [
  { method: 'PUT', path: '/admin/organizations/{orgId}/members/{userId}', body: { role: 'admin' } },
  { method: 'POST', path: '/admin/organizations/{orgId}/api-keys', body: { name: 'minted by a tenant' } },
  { method: 'PUT', path: '/admin/organizations/{orgId}/api-keys/{id}/limits', body: { limits: [] } },
  { method: 'POST', path: '/admin/organizations/{orgId}/credits', body: { amount: '1000.00' } },
];

/** The JWT-only console routes (and storage stats) an API key is refused, with the body tried. */
const JWT_ONLY_ROUTES: Array<[IdRoute['method'], string, unknown]> = [
  ['GET', '/v1/console/api-keys', undefined],
  ['POST', '/v1/console/api-keys', { name: 'by a key' }],
  ['PUT', '/v1/console/api-keys/{id}/limits', { limits: [] }],
  ['DELETE', '/v1/console/api-keys/{id}', undefined],
  ['GET', '/v1/storage/stats', undefined],
];

/** `GET /v1/media/{id}` for any name of the parameter, to compare routes with the OpenAPI document's. */
const routeKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/^\/api(?=\/)/, '').replace(/\{[^}]+\}/g, '{}')}`;

/**
 * Issue 24 §3: another organization, by API key or console JWT, finds none of an organization's
 * objects on any route that takes an id (a 404 whose body is the unknown id's, whatever the
 * object's state), and changes nothing; a second key of the same organization follows the
 * product's rule (history per key, media and files per organization); API keys are refused
 * the JWT-only console routes with 403, and every tenant credential the operator's routes; every
 * id-taking route of the OpenAPI document is in the matrix. No timing check: on a shared two-core
 * machine the difference between a found and a missing row is far below the noise of one request.
 * `open` starts the gateway (either mode) and resolves to its address and admin token.
 */
export function tenantIsolationSuite(mode: string, open: () => Promise<IsolationTarget>): void {
  describe(`tenant isolation on every id-taking route (${mode})`, () => {
    let api: string;
    let adminToken: string;
    let a: SeededOrganization;
    let b: SeededOrganization;
    let aJwt: string;
    let bJwt: string;
    /** A second key of organization A. */
    let a2: string;
    let chatId: string;
    /** A completed video of A1. */
    let video: Generation;
    /** A1's video that runs for a minute: pending or processing throughout the suite. */
    let running: Generation;
    /** The new generation A1's `extend` of `video` made. */
    let extended: Generation;
    let fileId: string;
    let fileUrl: string;
    /** A console key of A, with a spending limit. */
    let consoleKey: { id: string; key: string };

    const login = async (who: SeededOrganization) =>
      (
        await http('POST', `${api}/auth/login`, {
          body: { email: who.email, password: who.password, organizationId: who.organizationId },
        })
      ).body.access_token as string;
    const media = (token: string, body: unknown) =>
      http<Generation>('POST', `${api}/v1/media`, { token, body });
    const call = (route: IdRoute, id: string, token: string) =>
      http(route.method, `${api}${route.path.replace('{id}', id)}`, { token, body: route.body });
    const filesOf = async (token: string) =>
      (await http('GET', `${api}/v1/storage/files?limit=100`, { token })).body.data.map(
        (f: { id: string }) => f.id,
      ) as string[];
    const consoleKeyOfA = async () =>
      (await http('GET', `${api}/v1/console/api-keys`, { token: aJwt })).body.data.find(
        (k: { id: string }) => k.id === consoleKey.id,
      );
    /** The console key as A lists it, but for lastUsedAt, which the snapshot's own use of the key moves. */
    const consoleKeyState = async () => {
      const { lastUsedAt: _used, ...state } = await consoleKeyOfA();
      return state;
    };

    /** The state of each of A's objects as A reads it, for "unchanged afterwards". */
    const snapshot = async () => ({
      chat: await historyDetail(api, a.apiKey, chatId),
      video: (await http('GET', `${api}/v1/media/${video.id}`, { token: a.apiKey })).body,
      runningStatus: (await http('GET', `${api}/v1/media/${running.id}`, { token: a.apiKey })).body.status,
      extended: (await http('GET', `${api}/v1/media/${extended.id}`, { token: a.apiKey })).body.id,
      aHistory: (await http('GET', `${api}/v1/history/generations`, { token: aJwt })).body.meta.total,
      bHistory: (await http('GET', `${api}/v1/history/generations`, { token: bJwt })).body.meta.total,
      bBalance: (await balanceOf(api, b.apiKey)).toString(),
      files: (await filesOf(a.apiKey)).includes(fileId),
      fileServed: (await download(fileUrl)).status,
      consoleKey: await consoleKeyState(),
      consoleKeyWorks: (await http('GET', `${api}/v1/balance`, { token: consoleKey.key })).status,
    });

    beforeAll(async () => {
      ({ api, adminToken } = await open());
      [a, b] = await Promise.all([
        seedOrganization(api, adminToken, '1000.00'),
        seedOrganization(api, adminToken, '100.00'),
      ]);
      [aJwt, bJwt] = await Promise.all([login(a), login(b)]);
      a2 = (
        await http('POST', `${api}/admin/organizations/${a.organizationId}/api-keys`, {
          token: adminToken,
          body: { name: 'second key of A' },
        })
      ).body.key;

      const chat = await http('POST', `${api}/v1/chat/completions`, {
        token: a.apiKey,
        body: { model: 'demo/chat', messages: [{ role: 'user', content: 'mine alone' }] },
      });
      expect(chat.status).toBe(200);
      chatId = chat.body.id;

      const created = await media(a.apiKey, {
        model: 'demo/video',
        params: { prompt: 'A quiet harbour', duration: 3 },
        async: true,
      });
      expect(created.status).toBe(200);
      const slow = await media(a.apiKey, {
        model: 'demo/video',
        params: { prompt: 'A very slow sunset [[delay:60000]]', duration: 3 },
        async: true,
      });
      expect(slow.status).toBe(200);
      running = slow.body;
      video = await finalGeneration(api, a.apiKey, created.body.id);
      expect(video.status).toBe('completed');
      const extend = await http<Generation>('POST', `${api}/v1/media/${video.id}/operations`, {
        token: a.apiKey,
        body: { operation: 'extend', params: { prompt: 'The harbour at night', duration: 3 } },
      });
      expect(extend.status).toBe(200);
      extended = extend.body;

      const form = new FormData();
      form.append('storagePolicy', 'PERMANENT');
      form.append('file', new Blob([png]), 'mine.png');
      const uploaded = await fetch(`${api}/v1/storage/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.apiKey}` },
        body: form,
      });
      expect(uploaded.status).toBe(201);
      ({ id: fileId, url: fileUrl } = (await uploaded.json()) as { id: string; url: string });

      const key = await http('POST', `${api}/v1/console/api-keys`, {
        token: aJwt,
        body: { name: 'console key of A', limits: [{ period: 'month', amount: '50' }] },
      });
      expect(key.status).toBe(201);
      consoleKey = key.body;
    }, 300_000);

    /** Every route that takes an id and accepts API keys, with the object of A it is tried on. */
    const keyRoutes = (): Array<[string, IdRoute, string, () => string]> => [
      [
        'history detail of a chat',
        { method: 'GET', path: '/v1/history/generations/{id}' },
        chatId,
        unknownGenerationId,
      ],
      [
        'history detail of a video',
        { method: 'GET', path: '/v1/history/generations/{id}' },
        video.id,
        unknownGenerationId,
      ],
      [
        'v1 media of a completed video',
        { method: 'GET', path: '/v1/media/{id}' },
        video.id,
        unknownGenerationId,
      ],
      [
        'v2 media of a completed video',
        { method: 'GET', path: '/v2/media/{id}' },
        video.id,
        unknownGenerationId,
      ],
      [
        'v1 media of a running video',
        { method: 'GET', path: '/v1/media/{id}' },
        running.id,
        unknownGenerationId,
      ],
      [
        'v1 media of an operation’s new generation',
        { method: 'GET', path: '/v1/media/{id}' },
        extended.id,
        unknownGenerationId,
      ],
      [
        'an operation on a completed video',
        {
          method: 'POST',
          path: '/v1/media/{id}/operations',
          body: { operation: 'upscale_1080p', async: true },
        },
        video.id,
        unknownGenerationId,
      ],
      // The owner would get 409 (not completed): a stranger must not learn the state.
      [
        'an operation on a running video',
        {
          method: 'POST',
          path: '/v1/media/{id}/operations',
          body: { operation: 'upscale_1080p', async: true },
        },
        running.id,
        unknownGenerationId,
      ],
      [
        'cancel of a running video',
        { method: 'POST', path: '/v1/media/{id}/cancel', body: {} },
        running.id,
        unknownGenerationId,
      ],
      // The owner is answered the completed record (cancel is idempotent, decision 171).
      [
        'cancel of a completed video',
        { method: 'POST', path: '/v1/media/{id}/cancel', body: {} },
        video.id,
        unknownGenerationId,
      ],
      ['delete of a file', { method: 'DELETE', path: '/v1/storage/files/{id}' }, fileId, randomUUID],
    ];

    /** The console routes, JWT only, that take an API key's id. */
    const consoleRoutes = (): Array<[string, IdRoute]> => [
      ['limits of a key', { method: 'PUT', path: '/v1/console/api-keys/{id}/limits', body: { limits: [] } }],
      ['revocation of a key', { method: 'DELETE', path: '/v1/console/api-keys/{id}' }],
    ];

    it("answers B's key and B's JWT on every id-taking route 404, the body an unknown id's, and changes nothing of A's", async () => {
      const before = await snapshot();
      expect(before).toMatchObject({ files: true, fileServed: 200, consoleKeyWorks: 200 });
      expect(['pending', 'processing']).toContain(before.runningStatus);
      // What the owner is told instead: the state and the record a stranger's 404 must not give away.
      const early = await http('POST', `${api}/v1/media/${running.id}/operations`, {
        token: a.apiKey,
        body: { operation: 'upscale_1080p', async: true },
      });
      expect(early.status).toBe(409);
      const idle = await http<Generation>('POST', `${api}/v1/media/${video.id}/cancel`, {
        token: a.apiKey,
        body: {},
      });
      expect(idle.body.status).toBe('completed');
      const intruders: Array<[string, string]> = [
        ["B's key", b.apiKey],
        ["B's JWT", bJwt],
      ];
      const cases: Array<[string, IdRoute, string, () => string, string]> = [];
      for (const [who, token] of intruders) {
        for (const [what, route, id, unknown] of keyRoutes())
          cases.push([`${who}: ${what}`, route, id, unknown, token]);
      }
      for (const [what, route] of consoleRoutes())
        cases.push([`B's JWT: ${what}`, route, consoleKey.id, randomUUID, bJwt]);

      for (const [name, route, id, unknown, token] of cases) {
        const foreign = await call(route, id, token);
        const missingId = unknown();
        const missing = await call(route, missingId, token);
        expect({ name, status: foreign.status }).toEqual({ name, status: 404 });
        expect({ name, status: missing.status }).toEqual({ name, status: 404 });
        expect({ name, body: withoutId(foreign, id) }).toEqual({ name, body: withoutId(missing, missingId) });
        expect(foreign.headers.get('content-type')).toBe(missing.headers.get('content-type'));
      }

      const after = await snapshot();
      expect(after).toEqual({ ...before, video: unsigned(before.video) });
    });

    it("lets A's second key see only its own history, but the organization's media and files (what the product does)", async () => {
      const unknownId = unknownGenerationId();
      for (const id of [chatId, video.id]) {
        const foreign = await http('GET', `${api}/v1/history/generations/${id}`, { token: a2 });
        const missing = await http('GET', `${api}/v1/history/generations/${unknownId}`, { token: a2 });
        expect(foreign.status).toBe(404);
        expect(withoutId(foreign, id)).toBe(withoutId(missing, unknownId));
      }
      const list = await http('GET', `${api}/v1/history/generations`, { token: a2 });
      expect(list.body.meta.total).toBe(0);

      for (const version of ['v1', 'v2']) {
        const read = await http<Generation>('GET', `${api}/${version}/media/${video.id}`, { token: a2 });
        expect(read.status).toBe(200);
        expect(read.body).toEqual(unsigned(video));
      }
      expect(await filesOf(a2)).toContain(fileId);
      const cancelled = await http<Generation>('POST', `${api}/v1/media/${running.id}/cancel`, {
        token: a2,
        body: {},
      });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
    });

    it.each(JWT_ONLY_ROUTES)(
      'refuses API keys, its own organization’s or another’s, %s %s with 403',
      async (method, path, body) => {
        const answers = [];
        for (const token of [a.apiKey, a2, b.apiKey]) {
          const res = await http(method, `${api}${path.replace('{id}', consoleKey.id)}`, { token, body });
          expect(res.status).toBe(403);
          expect(res.body.error.type).toBe('permission_error');
          answers.push(res.text);
        }
        expect(new Set(answers).size).toBe(1);
        expect((await consoleKeyOfA()).limit).toEqual({ period: 'month', amount: '50.00000000' });
        expect((await http('GET', `${api}/v1/balance`, { token: consoleKey.key })).status).toBe(200);
      },
    );

    it("refuses every tenant credential on the operator's id-taking routes, for its own organization and another's", async () => {
      const balance = (await balanceOf(api, a.apiKey)).toString();
      const keysOfA = (await http('GET', `${api}/v1/console/api-keys`, { token: aJwt })).body.data.length;
      const fill = (path: string) =>
        path
          .replace('{orgId}', a.organizationId)
          .replace('{userId}', b.userId)
          .replace('{id}', consoleKey.id);
      for (const [who, token] of [
        ["A's key", a.apiKey],
        ["A's JWT", aJwt],
        ["B's key", b.apiKey],
        ["B's JWT", bJwt],
      ]) {
        for (const route of OPERATOR_ROUTES) {
          const res = await http(route.method, `${api}${fill(route.path)}`, { token, body: route.body });
          expect({ who, route: route.path, status: [401, 403].includes(res.status) }).toEqual({
            who,
            route: route.path,
            status: true,
          });
        }
      }
      expect((await balanceOf(api, a.apiKey)).toString()).toBe(balance);
      expect((await http('GET', `${api}/v1/console/api-keys`, { token: aJwt })).body.data.length).toBe(
        keysOfA,
      );
      expect((await consoleKeyOfA()).limit).toEqual({ period: 'month', amount: '50.00000000' });
      // B was not made a member of A: B cannot log in to A.
      const intoA = await http('POST', `${api}/auth/login`, {
        body: { email: b.email, password: b.password, organizationId: a.organizationId },
      });
      expect(intoA.status).toBeGreaterThanOrEqual(400);
    });

    it('covers every route of the OpenAPI document that takes an id (a new one fails here until it is listed)', async () => {
      const doc = (await http<{ paths: Record<string, Record<string, unknown>> }>('GET', `${api}/docs-json`))
        .body;
      const methods = ['get', 'post', 'put', 'patch', 'delete'];
      const documented = Object.entries(doc.paths)
        .filter(([path]) => path.includes('{'))
        .flatMap(([path, operations]) =>
          Object.keys(operations)
            .filter((method) => methods.includes(method))
            .map((method) => routeKey(method, path)),
        );
      const covered = new Set([
        ...keyRoutes().map(([, route]) => routeKey(route.method, route.path)),
        ...consoleRoutes().map(([, route]) => routeKey(route.method, route.path)),
        ...OPERATOR_ROUTES.map((route) => routeKey(route.method, route.path)),
      ]);
      expect(documented.filter((route) => !covered.has(route)).sort()).toEqual([]);
      // And the other way: every route of the matrix is one the document has, so the two are compared
      // in the same spelling and the list holds no route that is gone.
      expect([...covered].filter((route) => !documented.includes(route)).sort()).toEqual([]);
    });
  });
}
