import { type INestApplication, type INestMicroservice } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
// The test runs the real auth service beside the gateway, as the embedded app composes them.
import { AUTH_QUEUE, AuthEnv, AuthModule } from '@gw/app-auth';
import { AuthContracts, type UserPrincipal } from '@gw/contracts';
import { type RpcClient, startService, type TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  expectEventually,
  silentLogger,
  startTestNats,
  type TestDatabase,
  type TestNats,
} from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';

const JWT_SECRET = 'gateway-auth-int-spec-secret-42';
const ADMIN_TOKEN = 'admin-token-of-the-gateway-int-spec';
interface Reply {
  status: number;
  body: any;
}

describe('gateway authentication over HTTP, NATS and the auth service', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let auth: INestMicroservice;
  let gateway: INestApplication;
  let rpc: RpcClient;
  let closeRpc: () => Promise<void>;
  let sql: DataSource;
  let baseUrl: string;

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('gateway_auth'), startTestNats()]);
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    const authEnv = Object.assign(new AuthEnv(), {
      DATABASE_URL: db.url,
      JWT_SECRET,
      PASSWORD_HASH_COST: 14,
    });
    auth = await startService(
      AuthModule.register({ env: authEnv, transport }),
      transport,
      AUTH_QUEUE,
      silentLogger,
    );
    const gatewayEnv = Object.assign(new ApiGatewayEnv(), {
      NATS_URL: nats.url,
      JWT_SECRET,
      ADMIN_TOKEN,
      API_KEY_CACHE_TTL_MS: 10 * 60_000,
    });
    gateway = await createApiGatewayApp({ env: gatewayEnv, transport }, silentLogger);
    await gateway.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}/api`;
    const connection = await connectTestTransport(transport);
    rpc = connection.rpc;
    closeRpc = () => connection.close();
    sql = new DataSource({ type: 'postgres', url: db.url });
    await sql.initialize();
  });

  afterAll(async () => {
    await sql?.destroy();
    await closeRpc?.();
    await gateway?.close();
    await auth?.close();
    await db?.drop();
    await nats?.stop();
  });

  async function call(
    method: string,
    path: string,
    options: { token?: string; body?: unknown } = {},
  ): Promise<Reply> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/admin${path}`, { token: ADMIN_TOKEN, body });

  async function login(email: string, password: string, organizationId?: string): Promise<string> {
    const reply = await call('POST', '/auth/login', {
      body: { email, password, ...(organizationId ? { organizationId } : {}) },
    });
    expect(reply.status).toBe(200);
    return reply.body.access_token;
  }

  /** An organization with an admin and a member, set up through the operator API. */
  async function organization() {
    const org = (await admin('POST', '/organizations', { name: 'Acme' })).body;
    const users = [];
    for (const role of ['admin', 'member'] as const) {
      const email = `${role}-${randomUUID()}@example.com`;
      const user = (await admin('POST', '/users', { email, password: `${role} password`, name: role })).body;
      expect((await admin('PUT', `/organizations/${org.id}/members/${user.id}`, { role })).status).toBe(200);
      users.push({ ...user, jwt: await login(email, `${role} password`) });
    }
    return { org, adminUser: users[0], memberUser: users[1] };
  }

  it('answers 401 with the error envelope without credentials or with bad ones', async () => {
    expect(await call('GET', '/v1/console/api-keys')).toEqual({
      status: 401,
      body: {
        error: {
          message: expect.any(String),
          type: 'authentication_error',
          code: 'unauthorized',
          param: null,
        },
      },
    });
    expect(await call('GET', '/v1/console/api-keys', { token: 'sk-gw-not-a-real-key' })).toEqual({
      status: 401,
      body: {
        error: {
          message: 'Invalid API key',
          type: 'authentication_error',
          code: 'invalid_api_key',
          param: null,
        },
      },
    });
    const principal: UserPrincipal = {
      kind: 'user',
      organizationId: randomUUID(),
      userId: randomUUID(),
      role: 'admin',
    };
    const forged = new JwtService({ secret: 'some-other-secret-of-16-chars' }).sign(
      { org: principal.organizationId, role: 'admin' },
      { subject: principal.userId },
    );
    const expired = new JwtService({ secret: JWT_SECRET }).sign(
      { org: principal.organizationId, role: 'admin', exp: Math.floor(Date.now() / 1000) - 10 },
      { subject: principal.userId },
    );
    for (const token of [forged, expired, 'a.b.c']) {
      expect(await call('GET', '/v1/console/api-keys', { token })).toMatchObject({
        status: 401,
        body: { error: { type: 'authentication_error', code: 'unauthorized' } },
      });
    }
  });

  it('guards the operator API with ADMIN_TOKEN', async () => {
    expect((await call('POST', '/admin/organizations', { body: { name: 'x' } })).status).toBe(401);
    expect(
      (
        await call('POST', '/admin/organizations', {
          token: 'wrong-admin-token-of-some-length',
          body: { name: 'x' },
        })
      ).status,
    ).toBe(401);
    const { adminUser } = await organization();
    expect(
      (await call('POST', '/admin/organizations', { token: adminUser.jwt, body: { name: 'x' } })).status,
    ).toBe(401);
  });

  it('runs the operator flow: user, organization, membership, API key', async () => {
    const email = `ada-${randomUUID()}@example.com`;
    const user = await admin('POST', '/users', { email, password: 'analytical engine', name: 'Ada' });
    expect(user).toEqual({ status: 201, body: { id: expect.any(String), email, name: 'Ada' } });
    expect(
      await admin('POST', '/users', {
        email: email.toUpperCase(),
        password: 'another password',
        name: 'Copy',
      }),
    ).toMatchObject({
      status: 409,
      body: { error: { type: 'conflict_error', code: 'conflict', param: 'email' } },
    });
    expect(
      await admin('POST', '/users', { email: 'not-an-email', password: 'analytical engine', name: 'Ada' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', param: 'email' } },
    });
    expect(
      await admin('POST', '/users', { email: 'short@example.com', password: 'short', name: 'Ada' }),
    ).toMatchObject({
      status: 400,
      body: { error: { param: 'password' } },
    });
    expect(
      await admin('POST', '/users', {
        email: 'x@example.com',
        password: 'long enough',
        name: 'X',
        admin: true,
      }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });

    const org = await admin('POST', '/organizations', { name: 'Analytical' });
    expect(org).toEqual({ status: 201, body: { id: expect.any(String), name: 'Analytical' } });
    expect(
      await admin('PUT', `/organizations/${org.body.id}/members/${user.body.id}`, { role: 'admin' }),
    ).toEqual({
      status: 200,
      body: { organizationId: org.body.id, userId: user.body.id, role: 'admin' },
    });
    expect(
      await admin('PUT', `/organizations/${org.body.id}/members/${user.body.id}`, { role: 'owner' }),
    ).toMatchObject({
      status: 400,
      body: { error: { param: 'role' } },
    });
    expect(
      await admin('PUT', `/organizations/not-a-uuid/members/${user.body.id}`, { role: 'member' }),
    ).toMatchObject({
      status: 400,
      body: { error: { param: 'orgId' } },
    });
    expect(
      await admin('PUT', `/organizations/${randomUUID()}/members/${user.body.id}`, { role: 'member' }),
    ).toMatchObject({
      status: 404,
      body: { error: { type: 'not_found_error', code: 'not_found' } },
    });

    const key = await admin('POST', `/organizations/${org.body.id}/api-keys`, {
      name: 'backend',
      userId: user.body.id,
    });
    expect(key).toEqual({
      status: 201,
      body: {
        id: expect.any(String),
        key: expect.stringMatching(/^sk-gw-/),
        name: 'backend',
        short: key.body.key.slice(-6),
      },
    });
    expect((await admin('POST', `/organizations/${randomUUID()}/api-keys`, { name: 'x' })).status).toBe(404);
  });

  it('logs in with 200 and a bearer JWT, and refuses wrong credentials', async () => {
    const { org, memberUser } = await organization();
    const reply = await call('POST', '/auth/login', {
      body: { email: memberUser.email, password: 'member password', organizationId: org.id },
    });
    expect(reply).toEqual({
      status: 200,
      body: {
        access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        token_type: 'Bearer',
        expires_in: 3600,
      },
    });
    expect(
      await call('POST', '/auth/login', { body: { email: memberUser.email, password: 'wrong password' } }),
    ).toEqual({
      status: 401,
      body: {
        error: {
          message: 'Invalid email or password',
          type: 'authentication_error',
          code: 'unauthorized',
          param: null,
        },
      },
    });
    expect(
      (
        await call('POST', '/auth/login', {
          body: { email: memberUser.email, password: 'member password', organizationId: randomUUID() },
        })
      ).status,
    ).toBe(403);
  });

  it('refuses a correctly signed JWT that never expires', async () => {
    const { org, memberUser } = await organization();
    const login = await call('POST', '/auth/login', {
      body: { email: memberUser.email, password: 'member password', organizationId: org.id },
    });
    expect((await call('GET', '/v1/console/api-keys', { token: login.body.access_token })).status).toBe(200);
    const {
      sub,
      org: claimedOrg,
      role,
    } = JSON.parse(Buffer.from(login.body.access_token.split('.')[1], 'base64url').toString());
    const endless = new JwtService({ secret: JWT_SECRET }).sign({ org: claimedOrg, role }, { subject: sub });
    expect(JSON.parse(Buffer.from(endless.split('.')[1], 'base64url').toString()).exp).toBeUndefined();
    expect(await call('GET', '/v1/console/api-keys', { token: endless })).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error', code: 'unauthorized' } },
    });
  });

  it('refuses a correctly signed JWT that lives longer than auth issues them or was issued in the future', async () => {
    const { org, memberUser } = await organization();
    const signer = new JwtService({ secret: JWT_SECRET });
    const claims = { org: org.id, role: 'member' };
    const now = Math.floor(Date.now() / 1000);
    const century = signer.sign(claims, { subject: memberUser.id, expiresIn: 100 * 365 * 24 * 3600 });
    const tomorrow = signer.sign(
      { ...claims, iat: now + 24 * 3600, exp: now + 25 * 3600 },
      { subject: memberUser.id },
    );
    const asAuthIssues = signer.sign(claims, { subject: memberUser.id, expiresIn: 3600 });
    for (const token of [century, tomorrow]) {
      expect(await call('GET', '/v1/console/api-keys', { token })).toMatchObject({
        status: 401,
        body: { error: { type: 'authentication_error', code: 'unauthorized' } },
      });
    }
    expect((await call('GET', '/v1/console/api-keys', { token: asAuthIssues })).status).toBe(200);
  });

  it('answers 400, not 500, for invalid UTF-16 in a login or a new user', async () => {
    expect(
      await call('POST', '/auth/login', { body: { email: 'a\ud800@example.com', password: 'x' } }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', param: 'email' } },
    });
    expect(
      await admin('POST', '/users', {
        email: '\udc00b@example.com',
        password: 'analytical engine',
        name: 'Ada',
      }),
    ).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', param: 'email' } } });
  });

  it('manages console keys: members list, admins create and revoke, other organizations see 404', async () => {
    const { adminUser, memberUser } = await organization();
    const created = await call('POST', '/v1/console/api-keys', {
      token: adminUser.jwt,
      body: { name: 'console' },
    });
    expect(created).toEqual({
      status: 201,
      body: {
        id: expect.any(String),
        key: expect.stringMatching(/^sk-gw-/),
        name: 'console',
        short: expect.any(String),
      },
    });

    expect(await call('GET', '/v1/console/api-keys', { token: memberUser.jwt })).toEqual({
      status: 200,
      body: {
        data: [
          {
            id: created.body.id,
            name: 'console',
            short: created.body.short,
            createdAt: expect.any(String),
            lastUsedAt: null,
            userId: adminUser.id,
          },
        ],
      },
    });
    expect(
      await call('POST', '/v1/console/api-keys', { token: memberUser.jwt, body: { name: 'nope' } }),
    ).toMatchObject({
      status: 403,
      body: { error: { type: 'permission_error', code: 'forbidden' } },
    });
    expect(
      (await call('DELETE', `/v1/console/api-keys/${created.body.id}`, { token: memberUser.jwt })).status,
    ).toBe(403);
    expect((await call('DELETE', '/v1/console/api-keys/not-a-uuid', { token: adminUser.jwt })).status).toBe(
      400,
    );

    const other = await organization();
    expect(
      await call('DELETE', `/v1/console/api-keys/${created.body.id}`, { token: other.adminUser.jwt }),
    ).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(await call('DELETE', `/v1/console/api-keys/${created.body.id}`, { token: adminUser.jwt })).toEqual(
      { status: 200, body: { success: true } },
    );
    expect((await call('GET', '/v1/console/api-keys', { token: adminUser.jwt })).body).toEqual({ data: [] });
  });

  it('refuses an API key on a JWT-only route with 403', async () => {
    const { adminUser } = await organization();
    const key = (await call('POST', '/v1/console/api-keys', { token: adminUser.jwt, body: { name: 'k' } }))
      .body.key;
    expect(await call('GET', '/v1/console/api-keys', { token: key })).toMatchObject({
      status: 403,
      body: { error: { type: 'permission_error', code: 'forbidden' } },
    });
  });

  it('documents the routes in Swagger with their error envelopes', async () => {
    const { body: doc } = await call('GET', '/docs-json');
    const envelope = { $ref: '#/components/schemas/ErrorEnvelopeDto' };
    expect(doc.paths['/api/admin/users'].post.responses['409'].content['application/json'].schema).toEqual(
      envelope,
    );
    expect(doc.paths['/api/admin/organizations/{orgId}/members/{userId}'].put.responses['200']).toBeDefined();
    expect(doc.paths['/api/auth/login'].post.responses['401'].content['application/json'].schema).toEqual(
      envelope,
    );
    expect(Object.keys(doc.paths['/api/v1/console/api-keys'])).toEqual(
      expect.arrayContaining(['get', 'post']),
    );
    expect(
      doc.paths['/api/v1/console/api-keys/{id}'].delete.responses['404'].content['application/json'].schema,
    ).toEqual(envelope);
    expect(doc.components.schemas.CreateUserDto.properties.email.example).toBe('ada@example.com');
  });

  // On a JWT-only route a valid API key gets 403 (it authenticates, but is the wrong kind) and a
  // revoked one 401, so these requests show whether the gateway still accepts the key.
  describe('cached API keys', () => {
    it('are cached: a revocation that is not broadcast goes unnoticed until the entry expires', async () => {
      const { adminUser, org } = await organization();
      const { id, key } = (
        await call('POST', '/v1/console/api-keys', { token: adminUser.jwt, body: { name: 'cached' } })
      ).body;
      expect((await call('GET', '/v1/console/api-keys', { token: key })).status).toBe(403);
      await sql.query(`UPDATE auth.api_keys SET revoked_at = now() WHERE organization_id = $1 AND id = $2`, [
        org.id,
        id,
      ]);
      expect((await call('GET', '/v1/console/api-keys', { token: key })).status).toBe(403);
    });

    it('stop working at once when revoked through this gateway', async () => {
      const { adminUser } = await organization();
      const { id, key } = (
        await call('POST', '/v1/console/api-keys', { token: adminUser.jwt, body: { name: 'revoked here' } })
      ).body;
      expect((await call('GET', '/v1/console/api-keys', { token: key })).status).toBe(403);
      expect((await call('DELETE', `/v1/console/api-keys/${id}`, { token: adminUser.jwt })).status).toBe(200);
      expect(await call('GET', '/v1/console/api-keys', { token: key })).toMatchObject({
        status: 401,
        body: { error: { code: 'invalid_api_key', message: 'Invalid API key' } },
      });
    });

    it('are dropped by the broadcast when revoked elsewhere', async () => {
      const { org, adminUser } = await organization();
      const { id, key } = (
        await call('POST', '/v1/console/api-keys', {
          token: adminUser.jwt,
          body: { name: 'revoked elsewhere' },
        })
      ).body;
      expect((await call('GET', '/v1/console/api-keys', { token: key })).status).toBe(403);
      const principal: UserPrincipal = {
        kind: 'user',
        organizationId: org.id,
        userId: adminUser.id,
        role: 'admin',
      };
      await rpc.request(AuthContracts.consoleRevokeApiKey, { principal, id });
      await expectEventually(
        async () => expect((await call('GET', '/v1/console/api-keys', { token: key })).status).toBe(401),
        {
          timeoutMs: 5_000,
        },
      );
    });
  });
});
