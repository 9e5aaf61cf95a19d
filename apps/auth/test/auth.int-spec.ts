import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  EventPattern,
  MessagePattern,
  MicroserviceOptions,
  Payload,
  RpcException,
} from '@nestjs/microservices';
import {
  apiKeyHash,
  ApiKeyRevokedEvent,
  AuthContracts,
  AuthEvents,
  BillingContracts,
  ConsoleListApiKeysRequest,
  CreateUserRequest,
  KeyLimits,
  OAUTH_MESSAGES,
  OAuthContracts,
  SetKeyLimitsRequest,
  UserPrincipal,
} from '@gw/contracts';
import { RpcClient, serviceTransport, startService, TransportOptions } from '@gw/platform';
import { connectTestTransport } from '@gw/platform/testing';
import {
  createTestDatabase,
  expectEventually,
  silentLogger,
  malformedMessages,
  startTestNats,
  TestDatabase,
  TestNats,
} from '@gw/testing';
import { createHash, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AUTH_QUEUE, AuthEnv, AuthModule } from '../src/auth.module';

const JWT_SECRET = 'auth-int-spec-secret-0123456789';
/** Below production's 17, so the many sign-ups of this file stay quick. */
const TEST_HASH_COST = 14;

const revocations: ApiKeyRevokedEvent[] = [];

@Controller()
class RevocationListener {
  @EventPattern<string>(AuthEvents.apiKeyRevoked.subject)
  revoked(@Payload() event: ApiKeyRevokedEvent): void {
    revocations.push(event);
  }
}

const limitRequests: SetKeyLimitsRequest[] = [];
/** Limits of 7 wait for this gate, so a test can act while auth is making a key. */
let limitsGate: { entered: boolean; opened: Promise<void> } | null = null;

/**
 * Stands in for billing: records what auth forwards, refuses an amount of 13, so a failure path can
 * be seen, and holds an amount of 7 at `limitsGate`.
 */
@Controller()
class BillingLimitsStub {
  @MessagePattern(BillingContracts.setKeyLimits.subject)
  async set(@Payload() request: SetKeyLimitsRequest): Promise<KeyLimits> {
    limitRequests.push(request);
    if (limitsGate && request.limits.some((l) => l.amount === '7')) {
      limitsGate.entered = true;
      await limitsGate.opened;
    }
    if (request.limits.some((l) => l.amount === '13')) {
      // This bare listener has no RpcErrorFilter, so the error goes out already in the transport's shape.
      throw new RpcException({
        status: 400,
        code: 'invalid_request',
        message: 'unlucky amount',
        param: 'limits[0].amount',
      });
    }
    return {
      apiKeyId: request.apiKeyId,
      limits: request.limits.map((l) => ({ period: l.period, amount: Number(l.amount).toFixed(8) })),
    };
  }
}

@Module({ controllers: [RevocationListener, BillingLimitsStub] })
class ListenerModule {}

function decodeJwt(token: string): Record<string, unknown> {
  const [header, payload] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
  return { ...payload, alg: header.alg };
}

describe('auth service over NATS and Postgres', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let service: INestMicroservice;
  let listener: INestMicroservice;
  let client: RpcClient;
  let closeClient: () => Promise<void>;
  let sql: DataSource;

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('auth'), startTestNats()]);
    const env = Object.assign(new AuthEnv(), {
      DATABASE_URL: db.url,
      JWT_SECRET,
      JWT_TTL_SECONDS: 900,
      PASSWORD_HASH_COST: TEST_HASH_COST,
    });
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    service = await startService(
      AuthModule.register({ env, transport }),
      transport,
      AUTH_QUEUE,
      silentLogger,
    );
    listener = await NestFactory.createMicroservice<MicroserviceOptions>(ListenerModule, {
      ...serviceTransport(transport, null),
      logger: false,
    });
    await listener.listen();
    const connection = await connectTestTransport(transport);
    client = connection.rpc;
    closeClient = () => connection.close();
    sql = new DataSource({ type: 'postgres', url: db.url });
    await sql.initialize();
  });

  afterAll(async () => {
    await sql?.destroy();
    await closeClient?.();
    await listener?.close();
    await service?.close();
    await db?.drop();
    await nats?.stop();
  });

  async function organizationWithMembers() {
    const organization = await client.request(AuthContracts.adminCreateOrganization, { name: 'Acme' });
    const admin = await client.request(AuthContracts.adminCreateUser, {
      email: `admin-${randomUUID()}@example.com`,
      password: 'admin password',
      name: 'Admin',
    });
    const member = await client.request(AuthContracts.adminCreateUser, {
      email: `member-${randomUUID()}@example.com`,
      password: 'member password',
      name: 'Member',
    });
    await client.request(AuthContracts.adminSetMembership, {
      organizationId: organization.id,
      userId: admin.id,
      role: 'admin',
    });
    await client.request(AuthContracts.adminSetMembership, {
      organizationId: organization.id,
      userId: member.id,
      role: 'member',
    });
    const adminPrincipal: UserPrincipal = {
      kind: 'user',
      organizationId: organization.id,
      userId: admin.id,
      role: 'admin',
    };
    const memberPrincipal: UserPrincipal = {
      kind: 'user',
      organizationId: organization.id,
      userId: member.id,
      role: 'member',
    };
    return { organization, admin, member, adminPrincipal, memberPrincipal };
  }

  it('runs its migrations into its own schema', async () => {
    const tables = await sql.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'auth' ORDER BY 1`,
    );
    expect(tables.map((t: { table_name: string }) => t.table_name)).toEqual([
      'api_keys',
      'memberships',
      'migrations',
      'oauth_codes',
      'organizations',
      'users',
    ]);
  });

  it('creates users with a scrypt hash and refuses a duplicate email whatever its case', async () => {
    const email = `Grace-${randomUUID()}@Example.com`;
    const user = await client.request(AuthContracts.adminCreateUser, {
      email,
      password: 'a long password',
      name: 'Grace',
    });
    expect(user).toEqual({ id: expect.any(String), email, name: 'Grace' });
    const [row] = await sql.query(`SELECT password_hash FROM auth.users WHERE id = $1`, [user.id]);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    await expect(
      client.request(AuthContracts.adminCreateUser, {
        email: email.toUpperCase(),
        password: 'another password',
        name: 'Copy',
      }),
    ).rejects.toMatchObject({ code: 'conflict', status: 409, param: 'email' });
  });

  it('validates admin payloads', async () => {
    await expect(
      client.request(AuthContracts.adminCreateUser, {
        email: 'not-an-email',
        password: 'a long password',
        name: 'X',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'email' });
    await expect(
      client.request(AuthContracts.adminCreateUser, {
        email: 'short@example.com',
        password: 'short',
        name: 'X',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'password' });
    const { organization, admin } = await organizationWithMembers();
    await expect(
      client.request(AuthContracts.adminSetMembership, {
        organizationId: organization.id,
        userId: admin.id,
        role: 'owner' as 'admin',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'role' });
  });

  it('answers not_found for an unknown organization or user in admin calls', async () => {
    const { organization, admin } = await organizationWithMembers();
    await expect(
      client.request(AuthContracts.adminSetMembership, {
        organizationId: randomUUID(),
        userId: admin.id,
        role: 'member',
      }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await expect(
      client.request(AuthContracts.adminSetMembership, {
        organizationId: organization.id,
        userId: randomUUID(),
        role: 'member',
      }),
    ).rejects.toMatchObject({ code: 'not_found', param: 'userId' });
    await expect(
      client.request(AuthContracts.adminCreateApiKey, { organizationId: randomUUID(), name: 'k' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      client.request(AuthContracts.adminCreateApiKey, {
        organizationId: organization.id,
        name: 'k',
        userId: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: 'not_found', param: 'userId' });
  });

  it('changes a role by setting the membership again', async () => {
    const { organization, member } = await organizationWithMembers();
    const changed = await client.request(AuthContracts.adminSetMembership, {
      organizationId: organization.id,
      userId: member.id,
      role: 'admin',
    });
    expect(changed).toEqual({ organizationId: organization.id, userId: member.id, role: 'admin' });
    const rows = await sql.query(
      `SELECT role FROM auth.memberships WHERE organization_id = $1 AND user_id = $2`,
      [organization.id, member.id],
    );
    expect(rows).toEqual([{ role: 'admin' }]);
  });

  it('creates a key that is stored only as its hash and resolves to its principal', async () => {
    const { organization, member } = await organizationWithMembers();
    const created = await client.request(AuthContracts.adminCreateApiKey, {
      organizationId: organization.id,
      name: 'backend',
      userId: member.id,
    });
    expect(created).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^sk-gw-[0-9A-Za-z]{43}$/),
      name: 'backend',
      short: created.key.slice(-6),
    });
    const [row] = await sql.query(`SELECT * FROM auth.api_keys WHERE id = $1`, [created.id]);
    expect(row.key_hash).toBe(apiKeyHash(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const principal = await client.request(AuthContracts.resolveApiKey, { keyHash: apiKeyHash(created.key) });
    expect(principal).toEqual({
      kind: 'api_key',
      organizationId: organization.id,
      apiKeyId: created.id,
      apiKeyName: 'backend',
      apiKeyShort: created.short,
      userId: member.id,
    });
    await expect(
      client.request(AuthContracts.resolveApiKey, { keyHash: apiKeyHash('sk-gw-unknown') }),
    ).rejects.toMatchObject({
      code: 'invalid_api_key',
      status: 401,
      message: 'Invalid API key',
    });
  });

  it('records last use at most once a minute per key', async () => {
    const { organization } = await organizationWithMembers();
    const created = await client.request(AuthContracts.adminCreateApiKey, {
      organizationId: organization.id,
      name: 'touched',
    });
    const keyHash = apiKeyHash(created.key);
    await client.request(AuthContracts.resolveApiKey, { keyHash });
    const [first] = await sql.query(`SELECT last_used_at FROM auth.api_keys WHERE id = $1`, [created.id]);
    expect(first.last_used_at).toBeInstanceOf(Date);
    await client.request(AuthContracts.resolveApiKey, { keyHash });
    const [second] = await sql.query(`SELECT last_used_at FROM auth.api_keys WHERE id = $1`, [created.id]);
    expect(second.last_used_at).toEqual(first.last_used_at);

    await sql.query(`UPDATE auth.api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [
      created.id,
    ]);
    await client.request(AuthContracts.resolveApiKey, { keyHash });
    const [third] = await sql.query(`SELECT last_used_at FROM auth.api_keys WHERE id = $1`, [created.id]);
    expect(Date.now() - third.last_used_at.getTime()).toBeLessThan(30_000);
  });

  it('lets members list keys, lets only admins create and revoke them, and broadcasts the revocation', async () => {
    const { adminPrincipal, memberPrincipal, admin } = await organizationWithMembers();
    const created = await client.request(AuthContracts.consoleCreateApiKey, {
      principal: adminPrincipal,
      name: 'console key',
    });
    expect(created.key).toMatch(/^sk-gw-/);

    const listed = await client.request(AuthContracts.consoleListApiKeys, { principal: memberPrincipal });
    expect(listed.data).toEqual([
      {
        id: created.id,
        name: 'console key',
        short: created.short,
        createdAt: expect.any(String),
        lastUsedAt: null,
        userId: admin.id,
      },
    ]);

    await expect(
      client.request(AuthContracts.consoleCreateApiKey, { principal: memberPrincipal, name: 'nope' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
    });
    await expect(
      client.request(AuthContracts.consoleRevokeApiKey, { principal: memberPrincipal, id: created.id }),
    ).rejects.toMatchObject({ code: 'forbidden' });

    const keyHash = apiKeyHash(created.key);
    await client.request(AuthContracts.resolveApiKey, { keyHash });
    await expect(
      client.request(AuthContracts.consoleRevokeApiKey, { principal: adminPrincipal, id: created.id }),
    ).resolves.toEqual({
      success: true,
    });
    await expectEventually(() => expect(revocations).toContainEqual({ apiKeyId: created.id, keyHash }));
    await expect(client.request(AuthContracts.resolveApiKey, { keyHash })).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
    expect(
      (await client.request(AuthContracts.consoleListApiKeys, { principal: adminPrincipal })).data,
    ).toEqual([]);
    await expect(
      client.request(AuthContracts.consoleRevokeApiKey, { principal: adminPrincipal, id: created.id }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it("answers not_found for another organization's key and never lists it", async () => {
    const first = await organizationWithMembers();
    const second = await organizationWithMembers();
    const foreign = await client.request(AuthContracts.consoleCreateApiKey, {
      principal: second.adminPrincipal,
      name: 'theirs',
    });
    await expect(
      client.request(AuthContracts.consoleRevokeApiKey, { principal: first.adminPrincipal, id: foreign.id }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect(
      (await client.request(AuthContracts.consoleListApiKeys, { principal: first.adminPrincipal })).data,
    ).toEqual([]);
    await expect(
      client.request(AuthContracts.resolveApiKey, { keyHash: apiKeyHash(foreign.key) }),
    ).resolves.toMatchObject({
      apiKeyId: foreign.id,
    });
  });

  it('sets spending limits through billing for admins only, keeps them on the key and lists them', async () => {
    const { adminPrincipal, memberPrincipal, organization } = await organizationWithMembers();
    const created = await client.request(AuthContracts.consoleCreateApiKey, {
      principal: adminPrincipal,
      name: 'limited',
      limits: [{ period: 'month', amount: '100' }],
    });
    expect(limitRequests.at(-1)).toEqual({
      organizationId: organization.id,
      apiKeyId: created.id,
      limits: [{ period: 'month', amount: '100' }],
    });
    const limits = [
      { period: 'week' as const, amount: '20' },
      { period: 'day' as const, amount: '5.5' },
    ];
    await expect(
      client.request(AuthContracts.consoleSetApiKeyLimits, {
        principal: memberPrincipal,
        id: created.id,
        limits,
      }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      client.request(AuthContracts.consoleSetApiKeyLimits, {
        principal: adminPrincipal,
        id: created.id,
        limits,
      }),
    ).resolves.toEqual({
      apiKeyId: created.id,
      limits: [
        { period: 'week', amount: '20.00000000' },
        { period: 'day', amount: '5.50000000' },
      ],
    });
    const [listed] = (await client.request(AuthContracts.consoleListApiKeys, { principal: memberPrincipal }))
      .data;
    expect(listed).toMatchObject({
      limit: { period: 'day', amount: '5.50000000' },
      limits: [
        { period: 'week', amount: '20.00000000' },
        { period: 'day', amount: '5.50000000' },
      ],
    });
    await expect(
      client.request(AuthContracts.adminSetApiKeyLimits, {
        organizationId: organization.id,
        id: created.id,
        limits: [],
      }),
    ).resolves.toEqual({ apiKeyId: created.id, limits: [] });
    const [cleared] = (await client.request(AuthContracts.consoleListApiKeys, { principal: adminPrincipal }))
      .data;
    expect(cleared).not.toHaveProperty('limit');
    expect(cleared).not.toHaveProperty('limits');
  });

  it("refuses limits for another organization's key, malformed limits, and deletes a new key billing refused", async () => {
    const first = await organizationWithMembers();
    const second = await organizationWithMembers();
    const foreign = await client.request(AuthContracts.adminCreateApiKey, {
      organizationId: second.organization.id,
      name: 'x',
    });
    const calls = limitRequests.length;
    await expect(
      client.request(AuthContracts.consoleSetApiKeyLimits, {
        principal: first.adminPrincipal,
        id: foreign.id,
        limits: [],
      }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });
    await expect(
      client.request(AuthContracts.adminSetApiKeyLimits, {
        organizationId: first.organization.id,
        id: foreign.id,
        limits: [],
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      client.request(AuthContracts.adminSetApiKeyLimits, {
        organizationId: second.organization.id,
        id: foreign.id,
        limits: [{ period: 'year' as never, amount: '1' }],
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'limits[0].period' });
    expect(limitRequests).toHaveLength(calls);
    await expect(
      client.request(AuthContracts.adminCreateApiKey, {
        organizationId: first.organization.id,
        name: 'refused',
        limits: [{ period: 'day', amount: '13' }],
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'limits[0].amount' });
    expect(
      (await client.request(AuthContracts.consoleListApiKeys, { principal: first.adminPrincipal })).data,
    ).toEqual([]);
  });

  it('checks the role in the database, not the one the token claims', async () => {
    const { memberPrincipal } = await organizationWithMembers();
    await expect(
      client.request(AuthContracts.consoleCreateApiKey, {
        principal: { ...memberPrincipal, role: 'admin' },
        name: 'forged',
      }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('logs in with a HS256 JWT carrying user, organization and role', async () => {
    const { organization, member } = await organizationWithMembers();
    const other = await client.request(AuthContracts.adminCreateOrganization, { name: 'Other' });
    await client.request(AuthContracts.adminSetMembership, {
      organizationId: other.id,
      userId: member.id,
      role: 'admin',
    });

    const token = await client.request(AuthContracts.login, {
      email: member.email.toUpperCase(),
      password: 'member password',
    });
    expect(token).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900 });
    const claims = decodeJwt(token.access_token);
    expect(claims).toMatchObject({ alg: 'HS256', sub: member.id, org: organization.id, role: 'member' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(900);

    const chosen = await client.request(AuthContracts.login, {
      email: member.email,
      password: 'member password',
      organizationId: other.id,
    });
    expect(decodeJwt(chosen.access_token)).toMatchObject({ sub: member.id, org: other.id, role: 'admin' });
  });

  it('refuses a wrong password, an unknown email and an organization the user is not in', async () => {
    const { member } = await organizationWithMembers();
    const invalid = { code: 'unauthorized', status: 401, message: 'Invalid email or password' };
    await expect(
      client.request(AuthContracts.login, { email: member.email, password: 'wrong password' }),
    ).rejects.toMatchObject(invalid);
    await expect(
      client.request(AuthContracts.login, { email: 'nobody@example.com', password: 'member password' }),
    ).rejects.toMatchObject(invalid);
    await expect(
      client.request(AuthContracts.login, {
        email: member.email,
        password: 'member password',
        organizationId: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: 'forbidden', status: 403 });

    const loner = await client.request(AuthContracts.adminCreateUser, {
      email: `loner-${randomUUID()}@example.com`,
      password: 'loner password',
      name: 'Loner',
    });
    await expect(
      client.request(AuthContracts.login, { email: loner.email, password: 'loner password' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it.each(malformedMessages({ email: 'malformed@example.com', password: 'long enough', name: 'M' }, 'email'))(
    'answers a create-user message $label with invalid_request and writes no user',
    async ({ payload, param }) => {
      await expect(
        client.request(AuthContracts.adminCreateUser, payload as CreateUserRequest),
      ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
      const [row] = await sql.query(
        `SELECT count(*) AS n FROM auth.users WHERE email = 'malformed@example.com'`,
      );
      expect(Number(row.n)).toBe(0);
    },
  );

  it.each(
    malformedMessages(
      { principal: { kind: 'user', organizationId: randomUUID(), userId: randomUUID(), role: 'admin' } },
      'principal',
    ),
  )('answers a console list message $label with invalid_request', async ({ payload, param }) => {
    await expect(
      client.request(AuthContracts.consoleListApiKeys, payload as ConsoleListApiKeysRequest),
    ).rejects.toMatchObject({ code: 'invalid_request', status: 400, param });
  });

  it('replaces a password hash weaker than the current cost at the next successful login', async () => {
    const { member } = await organizationWithMembers();
    // A hash as an older release wrote it: scrypt at N=2^10.
    const salt = randomBytes(16);
    const weak = scryptSync('member password', salt, 64, { N: 1024, r: 8, p: 1 });
    const old = ['scrypt', 1024, 8, 1, salt.toString('base64'), weak.toString('base64')].join('$');
    await sql.query(`UPDATE auth.users SET password_hash = $1 WHERE id = $2`, [old, member.id]);

    await expect(
      client.request(AuthContracts.login, { email: member.email, password: 'wrong password' }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    const [unchanged] = await sql.query(`SELECT password_hash FROM auth.users WHERE id = $1`, [member.id]);
    expect(unchanged.password_hash).toBe(old);

    await client.request(AuthContracts.login, { email: member.email, password: 'member password' });
    const [row] = await sql.query(`SELECT password_hash FROM auth.users WHERE id = $1`, [member.id]);
    expect(row.password_hash).toMatch(new RegExp(`^scrypt\\$${2 ** TEST_HASH_COST}\\$8\\$1\\$`));
    const again = await client.request(AuthContracts.login, {
      email: member.email,
      password: 'member password',
    });
    expect(again.token_type).toBe('Bearer');
  });

  describe('OAuth authorization codes (RFC 6749 §4.1.2)', () => {
    const callbackUrl = 'https://app.example.com/callback';

    /** Who authorizes which application for which organization. */
    interface Grant {
      userId: string;
      organizationId: string;
      appName: string;
    }

    async function newGrant(): Promise<Grant> {
      const { organization, member } = await organizationWithMembers();
      return { userId: member.id, organizationId: organization.id, appName: `App ${randomUUID()}` };
    }

    async function issueCode(grant?: Grant, limits: { period: 'total'; amount: string }[] = []) {
      const verifier = randomBytes(32).toString('base64url');
      const { code } = await client.request(OAuthContracts.issueCode, {
        ...(grant ?? (await newGrant())),
        callbackUrl,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        scopes: ['user:id'],
        limits,
      });
      const exchange = (change: { codeVerifier?: string; callbackUrl?: string } = {}) =>
        client.request(OAuthContracts.exchangeCode, { code, codeVerifier: verifier, callbackUrl, ...change });
      return { code, exchange };
    }

    const refusedWith = (message: string) => ({ code: 'invalid_request', status: 400, message });
    const resolves = (key: string) =>
      client.request(AuthContracts.resolveApiKey, { keyHash: apiKeyHash(key) });

    it('burns a code at its first use, even with a wrong verifier or callback_url', async () => {
      const wrongVerifier = await issueCode();
      await expect(
        wrongVerifier.exchange({ codeVerifier: randomBytes(32).toString('base64url') }),
      ).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.invalidVerifier));
      await expect(wrongVerifier.exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));

      const wrongCallback = await issueCode();
      await expect(wrongCallback.exchange({ callbackUrl: `${callbackUrl}/` })).rejects.toMatchObject(
        refusedWith(OAUTH_MESSAGES.callbackMismatch),
      );
      await expect(wrongCallback.exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
    });

    it('revokes the key a code handed out when the code is used again, and broadcasts it', async () => {
      const { exchange } = await issueCode();
      const { key } = await exchange();
      await expect(resolves(key)).resolves.toMatchObject({ kind: 'api_key' });
      await expect(exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
      await expect(resolves(key)).rejects.toMatchObject({ code: 'invalid_api_key' });
      await expectEventually(() =>
        expect(revocations).toContainEqual({ apiKeyId: expect.any(String), keyHash: apiKeyHash(key) }),
      );
      // Once more: still refused, nothing else happens.
      await expect(exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
    });

    it('revokes the key when the code is used again while its first exchange is still making it', async () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      limitsGate = { entered: false, opened };
      const { code, exchange } = await issueCode(undefined, [{ period: 'total', amount: '7' }]);
      try {
        const first = exchange();
        first.catch(() => undefined);
        await expectEventually(() => expect(limitsGate?.entered).toBe(true));
        await expect(exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
        open();
        await expect(first).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
      } finally {
        open();
        limitsGate = null;
      }
      const [issued] = await sql.query(
        `SELECT k.revoked_at FROM auth.oauth_codes c JOIN auth.api_keys k ON k.key_hash = c.issued_key_hash
          WHERE c.code_hash = $1`,
        [apiKeyHash(code)],
      );
      expect(issued.revoked_at).toBeInstanceOf(Date);
    });

    it('does not revoke the secret of a later authorization when an old code is replayed', async () => {
      const grant = await newGrant();
      const first = await issueCode(grant);
      const { key: firstKey } = await first.exchange();
      // The same user authorizes the same application again: the key is rotated.
      const { key: secondKey } = await (await issueCode(grant)).exchange();
      await expect(resolves(firstKey)).rejects.toMatchObject({ code: 'invalid_api_key' });
      await expect(first.exchange()).rejects.toMatchObject(refusedWith(OAUTH_MESSAGES.codeUsed));
      await expect(resolves(secondKey)).resolves.toMatchObject({ kind: 'api_key' });
    });
  });
});
