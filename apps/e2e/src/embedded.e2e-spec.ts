import { expectEventually, freePort } from '@gw/testing';
import Decimal from 'decimal.js';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { type AppProcess, startApp } from './support/app-process';
import { http, seedOrganization, sseData } from './support/gateway-http';
import { embeddedCluster, removeEmbeddedData } from './support/embedded-data';

const run = promisify(execFile);
/** What the embedded mode credits the demo organization with on first start. */
const DEMO_CREDIT = '1000.00';

/** The embedded mode as a user meets it: one process, the banner it prints, the curl lines in it. */
describe('embedded mode (npm start)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let app: AppProcess;
  let apiKey: string;
  let adminToken: string;
  let api: string;

  const start = async () => {
    app = startApp('embedded', env);
    const [, key] = await app.waitFor(/Demo API key\s+(\S+)/, 90_000);
    const [, token] = await app.waitFor(/Admin token\s+(\S+)/);
    await app.waitFor(/curl -s \S+\/v1\/history\/generations.*\n/);
    return { key, token };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-embedded-'));
    const port = await freePort();
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      SYNC_WAIT_MS: '5000',
    };
    api = `http://127.0.0.1:${port}/api`;
    ({ key: apiKey, token: adminToken } = await start());
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    removeEmbeddedData(dataDir);
  });

  it('prints curl lines that work as printed', async () => {
    const lines = app
      .output()
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('curl '));
    expect(lines).toHaveLength(7);
    const outputs = await Promise.all(lines.map((line) => run('bash', ['-c', line]).then((r) => r.stdout)));
    const [models, chat, stream, embedding, image, balance, history] = outputs;
    expect(JSON.parse(models).data.map((m: { id: string }) => m.id)).toContain('demo/chat');
    expect(JSON.parse(chat)).toMatchObject({ object: 'chat.completion', model: 'demo/chat' });
    expect(JSON.parse(chat).choices[0].message.content).toContain('Hello, gateway!');
    expect(sseData(stream).at(-1)).toBe('[DONE]');
    expect(JSON.parse(embedding)).toMatchObject({
      object: 'list',
      data: [{ object: 'embedding', index: 0 }],
    });
    expect(JSON.parse(image).data).toEqual([expect.objectContaining({ url: expect.any(String) })]);
    expect(JSON.parse(balance).amount).toMatch(/^\d+(\.\d+)?$/);
    expect(JSON.parse(history)).toHaveProperty('items');
  });

  it('answers a chat completion with usage and cost, and charges exactly that', async () => {
    const chat = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', messages: [{ role: 'user', content: 'count my roubles' }] },
    });
    expect(chat.status).toBe(200);
    expect(chat.body.usage.cost_rub).toBeGreaterThan(0);
    expect(chat.body.usage.cost).toBe(chat.body.usage.cost_rub);
    const detail = await expectEventually(async () => {
      const res = await http('GET', `${api}/v1/history/generations/${chat.body.id}`, { token: apiKey });
      expect(res.status).toBe(200);
      return res.body;
    });
    expect(new Decimal(detail.clientCost).toNumber()).toBeCloseTo(chat.body.usage.cost_rub, 8);
    // Usage is settled after the answer, so once history and balance have caught up they must agree:
    // every generation of the demo key charged exactly its cost against the initial credit.
    await expectEventually(async () => {
      const history = await http('GET', `${api}/v1/history/generations?limit=100`, { token: apiKey });
      const charged = history.body.items.reduce(
        (sum: Decimal, item: { cost: string }) => sum.plus(item.cost),
        new Decimal(0),
      );
      const balance = new Decimal((await http('GET', `${api}/v1/balance`, { token: apiKey })).body.amount);
      expect(balance.toString()).toBe(new Decimal(DEMO_CREDIT).minus(charged).toString());
    });
  });

  it('streams chunks ending in [DONE] with the cost in the last chunk', async () => {
    const res = await http('POST', `${api}/v2/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', stream: true, messages: [{ role: 'user', content: 'one two three' }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = sseData(res.text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toContain('one two three');
    expect(chunks.at(-1).usage.cost_rub).toBeGreaterThan(0);
  });

  it('refuses missing and wrong credentials with the error envelope', async () => {
    const missing = await http('GET', `${api}/v1/balance`);
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ type: 'authentication_error' });
    const wrong = await http('GET', `${api}/v1/balance`, { token: 'sk-gw-not-a-key' });
    expect(wrong.status).toBe(401);
    expect(
      (await http('POST', `${api}/admin/organizations`, { token: apiKey, body: { name: 'x' } })).status,
    ).toBe(401);
    expect(
      (await http('POST', `${api}/admin/organizations`, { token: adminToken, body: { name: 'ok' } })).status,
    ).toBe(201);
  });

  it('answers malformed input and unknown routes with the envelope, never a 500', async () => {
    const badJson = await fetch(`${api}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: '{"model": "demo/chat", ',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_request',
    });
    const unknownField = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', prompt: 'hi', temprature: 1 },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.param).toBe('temprature');
    const outOfRange = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', prompt: 'hi', temperature: 3 },
    });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.error.param).toBe('temperature');
    const unknownModel = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'nope/none', prompt: 'hi' },
    });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error.param).toBe('model');
    const unknownRoute = await http('GET', `${api}/v1/nothing-here`, { token: apiKey });
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body.error.type).toBe('not_found_error');
    const unknownGeneration = await http(
      'GET',
      `${api}/v1/history/generations/gen-00000000-0000-0000-0000-000000000000`,
      { token: apiKey },
    );
    expect(unknownGeneration.status).toBe(404);
  });

  it('shows storage statistics to the console admin only', async () => {
    const [, email, password] = app.output().match(/Console login\s+(\S+) \/ (\S+)/) ?? [];
    const login = await http('POST', `${api}/auth/login`, { body: { email, password } });
    expect(login.status).toBe(200);
    const stats = await http('GET', `${api}/v1/storage/stats`, { token: login.body.access_token });
    expect(stats.status).toBe(200);
    // The one file is the image the banner's curl line generated: generated results count in the stats.
    expect(stats.body).toEqual({
      usedBytes: expect.any(Number),
      totalBytes: expect.any(Number),
      fileCount: 1,
      filesByType: { IMAGE: 1, VIDEO: 0, AUDIO: 0 },
      filesByPolicy: { TEMP_UPLOAD: 0, TEMP_GENERATION: 1, PERMANENT: 0 },
      usagePercent: expect.any(Number),
    });
    expect(stats.body.usedBytes).toBeGreaterThan(0);
    const withKey = await http('GET', `${api}/v1/storage/stats`, { token: apiKey });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.type).toBe('permission_error');
  });

  it('takes a demotion into account at once, although the console token still says admin', async () => {
    const seeded = await seedOrganization(api, adminToken, '1.00');
    const login = await http('POST', `${api}/auth/login`, {
      body: { email: seeded.email, password: seeded.password },
    });
    const token = login.body.access_token;
    expect((await http('GET', `${api}/v1/storage/stats`, { token })).status).toBe(200);
    const demoted = await http(
      'PUT',
      `${api}/admin/organizations/${seeded.organizationId}/members/${seeded.userId}`,
      { token: adminToken, body: { role: 'member' } },
    );
    expect(demoted.status).toBe(200);
    const stats = await http('GET', `${api}/v1/storage/stats`, { token });
    expect(stats.status).toBe(403);
    expect(stats.body.error.type).toBe('permission_error');
  });

  it('serves Swagger UI and the OpenAPI document with every route', async () => {
    const doc = await http('GET', `${api}/docs-json`);
    expect(doc.status).toBe(200);
    for (const path of [
      '/api/v1/chat/completions',
      '/api/v2/chat/completions',
      '/api/v1/models',
      '/api/v1/balance',
      '/api/v1/history/generations',
      '/api/v1/history/generations/{id}',
      '/api/admin/users',
      '/api/auth/login',
    ]) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
    const ui = await http('GET', `${api}/docs`);
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('publishes an OpenAPI document whose references all resolve and whose paging parameters are integers', async () => {
    const doc = (await http('GET', `${api}/docs-json`)).body;
    const text = JSON.stringify(doc);
    const references = [
      ...new Set([...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1])),
    ];
    expect(references.length).toBeGreaterThan(10);
    expect(references.filter((name) => !(name in doc.components.schemas))).toEqual([]);
    expect(Object.keys(doc.components.schemas)).not.toContain('Object');
    const transcription =
      doc.paths['/api/v1/audio/transcriptions'].post.responses['200'].content['application/json'].schema;
    expect(transcription).toEqual({ $ref: '#/components/schemas/TranscriptionResultDto' });
    expect(Object.keys(doc.components.schemas.TranscriptionResultDto.properties)).toEqual(
      expect.arrayContaining(['text', 'language', 'duration', 'segments', 'words', 'model', 'usage']),
    );
    for (const path of ['/api/v1/history/generations', '/api/v1/storage/files']) {
      const parameters = doc.paths[path].get.parameters as {
        name: string;
        schema: Record<string, unknown>;
      }[];
      for (const name of ['page', 'limit']) {
        expect(parameters.find((parameter) => parameter.name === name)?.schema).toMatchObject({
          type: 'integer',
          minimum: 1,
        });
      }
    }
  });

  it("answers 200 to every request example of the chat-style operations, as Swagger UI's Try it out sends it", async () => {
    const doc = (await http('GET', `${api}/docs-json`)).body;
    const origin = api.slice(0, -'/api'.length);
    for (const path of ['/api/v1/chat/completions', '/api/v1/responses', '/api/v1/messages']) {
      const operation = doc.paths[path].post;
      expect(Object.keys(operation.responses['200'].content)).toEqual([
        'application/json',
        'text/event-stream',
      ]);
      const examples = Object.values<{ value: unknown }>(
        operation.requestBody.content['application/json'].examples ?? {},
      );
      expect(examples.length).toBeGreaterThan(0);
      for (const { value } of examples) {
        const answer = await http('POST', `${origin}${path}`, { token: apiKey, body: value });
        expect({ path, value, status: answer.status }).toEqual({ path, value, status: 200 });
      }
    }
    expect(doc.components.schemas.ChatMessageDto.properties.refusal).toMatchObject({
      type: 'string',
      nullable: true,
    });
    expect(doc.components.schemas.EmbeddingRequestDto.properties.dimensions.type).toBe('integer');
  });

  it('runs its PostgreSQL with 32 MB of shared buffers', async () => {
    const { port } = embeddedCluster(dataDir);
    const client = new Client({
      connectionString: `postgresql://postgres:gateway@127.0.0.1:${port}/gateway`,
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ shared_buffers: string }>('SHOW shared_buffers');
      expect(rows[0].shared_buffers).toBe('32MB');
    } finally {
      await client.end();
    }
  });

  /** The processes whose parent is `pid`, as `pid pgid args` lines. */
  const childrenOf = async (pid: number) =>
    (await run('ps', ['-o', 'pid=,pgid=,args=', '--ppid', String(pid)])).stdout.trim().split('\n');

  it('runs the gateway in a child started with 32 MB semi-spaces, in a process group of its own (decision 198)', async () => {
    const launcher = app.child.pid as number;
    const [child] = await childrenOf(launcher);
    expect(await childrenOf(launcher)).toHaveLength(1);
    const [pid, pgid, ...args] = child.trim().split(/\s+/);
    expect(args).toEqual([
      process.execPath,
      '--max-semi-space-size=32',
      expect.stringMatching(/embedded\/main\.js$/),
    ]);
    expect(pgid).toBe(pid);
    // The gateway's own processes (PostgreSQL) are its children, not the launcher's.
    expect((await childrenOf(Number(pid))).some((line) => line.includes('postgres'))).toBe(true);
  });

  it('keeps the demo key across a restart', async () => {
    await app.stop();
    const again = await start();
    expect(again.key).toBe(apiKey);
    const chat = await http('POST', `${api}/v1/chat/completions`, {
      token: apiKey,
      body: { model: 'demo/chat', prompt: 'still here' },
    });
    expect(chat.status).toBe(200);
  }, 120_000);

  it('stops the gateway and its PostgreSQL when the launcher is killed outright', async () => {
    const launcher = app.child.pid as number;
    const [child] = await childrenOf(launcher);
    const gateway = Number(child.trim().split(/\s+/)[0]);
    const { port } = embeddedCluster(dataDir);
    app.child.kill('SIGKILL');
    await expectEventually(
      async () => {
        expect(() => process.kill(gateway, 0)).toThrow();
        const client = new Client({
          connectionString: `postgresql://postgres:gateway@127.0.0.1:${port}/gateway`,
        });
        await expect(client.connect()).rejects.toThrow();
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }, 60_000);
});
