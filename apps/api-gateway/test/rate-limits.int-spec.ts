import { Controller, INestApplication, INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
// The test runs the real auth service beside the gateways, as the embedded app composes them.
import { AUTH_QUEUE, AuthEnv, AuthModule } from '@gw/app-auth';
import { BalanceResponse, BillingContracts, GetBalanceRequest } from '@gw/contracts';
import { AppMetrics, startService, TransportOptions } from '@gw/platform';
import { createTestDatabase, expectEventually, startTestNats, TestDatabase, TestNats } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ApiGatewayEnv, createApiGatewayApp } from '../src/api-gateway.module';

const JWT_SECRET = 'gateway-rate-limits-int-spec-secret';
const ADMIN_TOKEN = 'admin-token-of-the-rate-limits-spec';
const silent = { log: () => undefined, error: () => undefined, warn: () => undefined };

/**
 * Small limits, so that the test reaches them in a few requests; a backoff far longer than a loaded
 * machine takes for a few logins, as no test waits for one to end.
 */
const LIMITS: Partial<ApiGatewayEnv> = {
  RATE_LIMIT_RPM_PER_KEY: 4,
  RATE_LIMIT_CONCURRENT_PER_KEY: 2,
  RATE_LIMIT_RPM_PER_ORGANIZATION: 6,
  RATE_LIMIT_CONCURRENT_PER_ORGANIZATION: 0,
  AUTH_FREE_FAILURES_PER_ACCOUNT: 3,
  AUTH_FREE_FAILURES_PER_ADDRESS: 3,
  AUTH_BACKOFF_BASE_MS: 60_000,
  AUTH_BACKOFF_MAX_MS: 60_000,
};

/** Organizations whose balance requests the stand-in billing holds until `releaseHeld`. */
const heldOrganizations = new Set<string>();
let heldRequests = 0;
let releaseHeld: () => void = () => undefined;
const held = new Promise<void>((resolve) => (releaseHeld = resolve));

@Controller()
class BillingStandIn {
  @MessagePattern(BillingContracts.getBalance.subject)
  async balance(@Payload() request: GetBalanceRequest): Promise<BalanceResponse> {
    if (heldOrganizations.has(request.organizationId)) {
      heldRequests++;
      await held;
    }
    return { amount: '100.00' };
  }
}

@Module({ controllers: [BillingStandIn] })
class BillingStandInModule {}

interface Reply {
  status: number;
  retryAfter: string | null;
  body: any;
}

describe('rate limits and brute-force protection, shared by gateway replicas over NATS', () => {
  let db: TestDatabase;
  let nats: TestNats;
  let services: INestMicroservice[];
  /** Two replicas behind a proxy on loopback, and one that trusts no proxy. */
  let replicas: { behindProxy: string[]; direct: string };
  let gateways: INestApplication[];

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase('gateway_rate_limits'), startTestNats()]);
    const transport: TransportOptions = { kind: 'nats', servers: nats.url, rpcTimeoutMs: 5_000 };
    // Quick password hashes: the logins here test the gateway's counts, not scrypt.
    const authEnv = Object.assign(new AuthEnv(), {
      DATABASE_URL: db.url,
      JWT_SECRET,
      PASSWORD_HASH_COST: 10,
    });
    services = [
      await startService(AuthModule.register({ env: authEnv, transport }), transport, AUTH_QUEUE, silent),
      await startService({ module: BillingStandInModule }, transport, 'billing', silent),
    ];
    const start = async (trustedProxies: string) => {
      const env = Object.assign(new ApiGatewayEnv(), LIMITS, {
        NATS_URL: nats.url,
        JWT_SECRET,
        ADMIN_TOKEN,
        TRUSTED_PROXIES: trustedProxies,
      });
      const gateway = await createApiGatewayApp({ env, transport }, silent);
      await gateway.listen(0, '127.0.0.1');
      gateways.push(gateway);
      return `http://127.0.0.1:${(gateway.getHttpServer().address() as { port: number }).port}/api`;
    };
    gateways = [];
    replicas = { behindProxy: [await start('127.0.0.1'), await start('loopback')], direct: await start('') };
  });

  afterAll(async () => {
    releaseHeld();
    for (const gateway of gateways ?? []) await gateway.close();
    for (const service of services ?? []) await service.close();
    await db?.drop();
    await nats?.stop();
  });

  async function call(
    baseUrl: string,
    method: string,
    path: string,
    options: { token?: string; body?: unknown; forwardedFor?: string } = {},
  ): Promise<Reply> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {}),
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: text ? JSON.parse(text) : undefined,
    };
  }

  /** Replica i % 2 behind the proxy, so consecutive calls alternate between the two. */
  const replica = (i: number) => replicas.behindProxy[i % 2];

  const admin = (method: string, path: string, body?: unknown) =>
    call(replica(0), method, `/admin${path}`, { token: ADMIN_TOKEN, body });

  async function member(password: string): Promise<{ email: string; orgId: string }> {
    const org = (await admin('POST', '/organizations', { name: 'Acme' })).body;
    const email = `user-${randomUUID()}@example.com`;
    const user = (await admin('POST', '/users', { email, password, name: 'User' })).body;
    expect(
      (await admin('PUT', `/organizations/${org.id}/members/${user.id}`, { role: 'admin' })).status,
    ).toBe(200);
    return { email, orgId: org.id };
  }

  const login = (i: number, email: string, password: string, forwardedFor: string) =>
    call(replica(i), 'POST', '/auth/login', { body: { email, password }, forwardedFor });

  const tooManyRequests = {
    status: 429,
    retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
    body: {
      error: { message: 'Too Many Requests', type: 'rate_limit_error', code: 'rate_limited', param: null },
    },
  };

  it('answers 429 with Retry-After once one address has guessed too often, across replicas', async () => {
    const { email } = await member('the right password');
    const other = await member('another password');
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await login(i, email, `guess ${i}`, '203.0.113.7')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect(await login(0, email, 'guess 6', '203.0.113.7')).toEqual(tooManyRequests);
    expect(await login(1, other.email, 'another password', '203.0.113.7')).toEqual(tooManyRequests);
    expect((await login(0, other.email, 'another password', '198.51.100.8')).status).toBe(200);
  });

  it('never refuses the right password from an address that did not guess, however often others guessed', async () => {
    const { email } = await member('the right password');
    const oneGuesser = [];
    for (let i = 0; i < 5; i++)
      oneGuesser.push((await login(i, email, `guess ${i}`, '198.51.100.10')).status);
    expect(oneGuesser).toEqual([401, 401, 401, 401, 429]);
    expect((await login(1, email, 'the right password', '198.51.100.11')).status).toBe(200);

    const manyGuessers = [];
    for (let i = 0; i < 6; i++)
      manyGuessers.push((await login(i, email, `guess ${i}`, `198.51.100.${20 + i}`)).status);
    expect(manyGuessers).toEqual([401, 401, 401, 401, 401, 401]);
    for (let i = 0; i < 2; i++)
      expect((await login(i, email, 'the right password', `198.51.100.${40 + i}`)).status).toBe(200);
  });

  it('slows every address guessing an account under attack from its first failure, and only those', async () => {
    const { email } = await member('the right password');
    const other = await member('another password');
    // More failures than the account's free ones, spread so that no address reaches its own bound.
    for (let i = 0; i < 4; i++)
      expect((await login(i, email, `guess ${i}`, `198.51.100.${60 + i}`)).status).toBe(401);
    const newcomer = '198.51.100.70';
    expect((await login(0, email, 'a first guess', newcomer)).status).toBe(401);
    expect(await login(1, email, 'a second guess', newcomer)).toEqual(tooManyRequests);
    // It waits on this account only, and the owner at any other address is let in.
    expect((await login(0, other.email, 'another password', newcomer)).status).toBe(200);
    expect((await login(1, email, 'the right password', '198.51.100.71')).status).toBe(200);
    expect((await login(0, email, 'the right password', '198.51.100.60')).status).toBe(200);
  });

  it('does not let a client choose its address with X-Forwarded-For when the peer is not a trusted proxy', async () => {
    const { email } = await member('the right password');
    const other = await member('another password');
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await call(replicas.direct, 'POST', '/auth/login', {
            body: { email: `nobody-${i}-${randomUUID()}@example.com`, password: 'guess' },
            forwardedFor: `192.0.2.${i + 1}`,
          })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(
      await call(replicas.direct, 'POST', '/auth/login', {
        body: { email, password: 'the right password' },
        forwardedFor: '192.0.2.99',
      }),
    ).toEqual(tooManyRequests);
    expect((await login(0, other.email, 'another password', '192.0.2.99')).status).toBe(200);
  });

  it('backs off an address that guesses the admin token, and not another one', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await call(replica(i), 'POST', '/admin/organizations', {
            token: `wrong-token-${i}`,
            body: { name: 'x' },
            forwardedFor: '203.0.113.66',
          })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const refused = await call(replica(0), 'POST', '/admin/organizations', {
      token: ADMIN_TOKEN,
      body: { name: 'x' },
      forwardedFor: '203.0.113.66',
    });
    expect(refused).toEqual(tooManyRequests);
    expect(
      (
        await call(replica(1), 'POST', '/admin/organizations', {
          token: ADMIN_TOKEN,
          body: { name: 'x' },
          forwardedFor: '203.0.113.67',
        })
      ).status,
    ).toBe(201);
  });

  it('never refuses the right admin token because of guesses from other addresses, and slows the guessers', async () => {
    const operator = (token: string, forwardedFor: string, i = 0) =>
      call(replica(i), 'POST', '/admin/organizations', { token, body: { name: 'x' }, forwardedFor });
    // The probe's attack: over a hundred wrong tokens, each address under its own bound.
    const guessers = Array.from({ length: 35 }, (_, i) => `203.0.113.${100 + i}`);
    const rounds: number[][] = [];
    for (let round = 0; round < 3; round++) {
      const statuses = [];
      for (const [i, address] of guessers.entries())
        statuses.push((await operator(`wrong-token-${round}-${i}`, address, i)).status);
      rounds.push(statuses);
    }
    for (let i = 0; i < 3; i++)
      expect((await operator(ADMIN_TOKEN, `203.0.113.${200 + i}`, i)).status).toBe(201);
    // Once the operator account has had more failures than its free ones (3 here), each address that
    // guesses waits after its first failure: only the first round, and in the second at most the
    // addresses that failed before the account was under attack, got an answer.
    expect(rounds[0]).toEqual(guessers.map(() => 401));
    expect(rounds[1].filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect(rounds[1].filter((status) => status === 429).length).toBeGreaterThanOrEqual(31);
    expect(rounds[2]).toEqual(guessers.map(() => 429));
    expect((await operator(ADMIN_TOKEN, '203.0.113.200', 1)).status).toBe(201);
  });

  async function apiKeys(count: number): Promise<{ orgId: string; keys: string[] }> {
    const { orgId } = await member('a password');
    const keys = [];
    for (let i = 0; i < count; i++)
      keys.push((await admin('POST', `/organizations/${orgId}/api-keys`, { name: `key ${i}` })).body.key);
    return { orgId, keys };
  }

  const balance = (i: number, key: string) => call(replica(i), 'GET', '/v1/balance', { token: key });

  /** The refusals the replicas counted on a route, all replicas together. */
  const refusals = async (route: string) => {
    let total = 0;
    for (const gateway of gateways) {
      const counter = gateway.get(AppMetrics).registry.getSingleMetric('gw_rate_limit_refusals_total');
      const values = counter ? (await counter.get()).values : [];
      total += values.find((value) => value.labels['route'] === route)?.value ?? 0;
    }
    return total;
  };

  it('limits the requests per minute of an API key and of its organization across replicas', async () => {
    const { keys } = await apiKeys(2);
    const refusedBefore = await refusals('/api/v1/balance');
    const first = [];
    for (let i = 0; i < 5; i++) first.push((await balance(i, keys[0])).status);
    expect(first).toEqual([200, 200, 200, 200, 429]);
    const refused = await balance(1, keys[0]);
    expect(refused).toEqual(tooManyRequests);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    const second = [];
    for (let i = 0; i < 3; i++) second.push((await balance(i, keys[1])).status);
    expect(second).toEqual([200, 200, 429]);
    // Each 429 counted once, by route template, on the replica that refused it.
    expect((await refusals('/api/v1/balance')) - refusedBefore).toBe(3);
  });

  it('limits the concurrent requests of an API key across replicas and frees a place when one ends', async () => {
    const { orgId, keys } = await apiKeys(1);
    heldOrganizations.add(orgId);
    const inFlight = [balance(0, keys[0]), balance(1, keys[0])];
    await expectEventually(() => expect(heldRequests).toBe(2));
    expect(await balance(0, keys[0])).toEqual(tooManyRequests);
    expect(await balance(1, keys[0])).toEqual(tooManyRequests);
    heldOrganizations.delete(orgId);
    releaseHeld();
    expect((await Promise.all(inFlight)).map((reply) => reply.status)).toEqual([200, 200]);
    expect((await balance(1, keys[0])).status).toBe(200);
  });

  it("applies a key's and an organization's own limits where auth has them", async () => {
    const { orgId, keys } = await apiKeys(3);
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query(`UPDATE auth.organizations SET rate_limit_rpm = 3 WHERE id = $1`, [orgId]);
      await sql.query(
        `UPDATE auth.api_keys SET rate_limit_rpm = 1 WHERE organization_id = $1 AND name = 'key 0'`,
        [orgId],
      );
    } finally {
      await sql.end();
    }
    expect((await balance(0, keys[0])).status).toBe(200);
    expect(await balance(1, keys[0])).toEqual(tooManyRequests);
    expect((await balance(0, keys[1])).status).toBe(200);
    expect((await balance(1, keys[2])).status).toBe(200);
    expect(await balance(0, keys[2])).toEqual(tooManyRequests);
  });
});
