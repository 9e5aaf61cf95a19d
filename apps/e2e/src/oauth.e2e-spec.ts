import Decimal from 'decimal.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { WORKSPACE_ROOT } from './support/app-process';
import { DistributedStack } from './support/distributed-stack';
import { http, type HttpResult, seedOrganization, type SeededOrganization } from './support/gateway-http';
import { OAuthApplication, pkcePair, type PkcePair } from './support/oauth-application';

/** Where the run leaves its pictures of the login and consent pages (dist/ is not committed). */
const SCREENSHOTS = join(WORKSPACE_ROOT, 'dist/screenshots/oauth');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

const MESSAGES = {
  invalidCallbackUrl: 'Невалидный callback_url',
  onlyS256: 'Поддерживается только метод S256',
  invalidCodeChallenge: 'Невалидный code_challenge',
  invalidCode: 'Невалидный код авторизации',
  codeUsed: 'Код авторизации уже использован',
  codeExpired: 'Код авторизации истёк',
  callbackMismatch: 'callback_url не совпадает',
  invalidVerifier: 'Невалидный code_verifier',
};

interface Consent {
  pkce: PkcePair;
  appName?: string;
  state?: string;
  organizationId?: string;
  scopes?: string[];
  limit?: { period: string; amount: string };
  decision?: 'approve' | 'decline';
  /** Save the consent page under this name, at desktop and phone width. */
  screenshots?: string;
}

describe('OAuth 2.0 with PKCE: key issuance through the browser (two gateway replicas)', () => {
  const adminToken = 'e2e-admin-token-oauth-flow';
  // Client addresses of the token rate limit come from X-Forwarded-For, as behind a proxy.
  const stack = new DistributedStack({
    database: 'e2e_oauth',
    adminToken,
    jwtSecret: 'e2e-jwt-secret-oauth-flow',
    env: { 'api-gateway': { TRUSTED_PROXIES: 'loopback' } },
  });
  const application = new OAuthApplication();
  let api: string;
  let replica: string;
  let browser: Browser;
  let db: Client;
  let org: SeededOrganization;
  let secondOrganizationId: string;
  /** A browser whose user logged in once; later authorizations go straight to consent. */
  let signedIn: BrowserContext;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await Promise.all([stack.start(), application.start()]);
    api = stack.api;
    replica = await stack.startGatewayReplica();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
    org = await seedOrganization(api, adminToken, '100.00');
    const second = await http<{ id: string }>('POST', `${api}/admin/organizations`, {
      token: adminToken,
      body: { name: 'Вторая организация' },
    });
    secondOrganizationId = second.body.id;
    await http('PUT', `${api}/admin/organizations/${secondOrganizationId}/members/${org.userId}`, {
      token: adminToken,
      body: { role: 'member' },
    });
    signedIn = await browser.newContext({ viewport: DESKTOP });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await application.stop();
    await stack.stop();
  }, 60_000);

  let addresses = 0;
  /** A client address of its own, so the token rate limit of one test does not spill into another. */
  const newAddress = () => `10.77.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

  function exchange(
    body: Record<string, unknown>,
    options: { base?: string; address?: string } = {},
  ): Promise<HttpResult<any>> {
    return http('POST', `${options.base ?? api}/auth/token`, {
      body,
      headers: { 'x-forwarded-for': options.address ?? newAddress() },
    });
  }

  function authorizeUrl(params: Record<string, string | undefined>, base = api): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
    return `${base}/auth/authorize?${query.toString()}`;
  }

  function validParams(pkce: PkcePair, extra: Record<string, string | undefined> = {}) {
    return {
      response_type: 'code',
      callback_url: application.callbackUrl,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
    await page.setViewportSize(DESKTOP);
  }

  async function logIn(page: Page, password = org.password): Promise<void> {
    await page.fill('input[name="email"]', org.email);
    await page.fill('input[name="password"]', password);
    await page.click('button[type="submit"]');
    await page.waitForLoadState();
  }

  /** Opens the consent page of `consent` in `context`, logging in first when the page asks. */
  async function openConsent(context: BrowserContext, consent: Consent): Promise<Page> {
    const page = await context.newPage();
    const response = await page.goto(
      authorizeUrl(validParams(consent.pkce, { state: consent.state, app_name: consent.appName })),
    );
    expect(response?.status()).toBe(200);
    if ((await page.locator('input[name="password"]').count()) > 0) {
      await logIn(page);
    }
    await page.waitForSelector('select[name="organizationId"]');
    return page;
  }

  async function fillConsent(page: Page, consent: Consent): Promise<void> {
    if (consent.organizationId)
      await page.selectOption('select[name="organizationId"]', consent.organizationId);
    for (const scope of consent.scopes ?? []) await page.check(`input[name="scopes"][value="${scope}"]`);
    if (consent.limit) {
      await page.selectOption('select[name="limitPeriod"]', consent.limit.period);
      await page.fill('input[name="limitAmount"]', consent.limit.amount);
    }
    if (consent.screenshots) await screenshot(page, `${consent.screenshots}-consent`);
  }

  /** The whole browser part; resolves to the callback URL the browser was sent to. */
  async function authorize(context: BrowserContext, consent: Consent): Promise<URL> {
    const page = await openConsent(context, consent);
    await fillConsent(page, consent);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(application.callbackUrl)),
      page.click(`button[name="decision"][value="${consent.decision ?? 'approve'}"]`),
    ]);
    const landed = new URL(page.url());
    await page.close();
    return landed;
  }

  /** Authorizes and exchanges: the key the application ends up with. */
  async function obtainKey(consent: Omit<Consent, 'pkce'>): Promise<{ key: string; user_id: string }> {
    const pkce = pkcePair();
    const landed = await authorize(signedIn, { ...consent, pkce });
    const result = await exchange({
      code: landed.searchParams.get('code'),
      code_verifier: pkce.verifier,
      callback_url: application.callbackUrl,
    });
    expect(result.status).toBe(200);
    return result.body;
  }

  async function consoleToken(): Promise<string> {
    const login = await http('POST', `${api}/auth/login`, {
      body: { email: org.email, password: org.password, organizationId: org.organizationId },
    });
    return login.body.access_token;
  }

  describe('authorization errors (interface table), each with its exact message', () => {
    const pkce = pkcePair();
    it.each([
      ['a malformed callback_url', { callback_url: 'not a url' }, MESSAGES.invalidCallbackUrl],
      [
        'a callback_url without HTTPS',
        { callback_url: 'http://app.example.com/cb' },
        MESSAGES.invalidCallbackUrl,
      ],
      [
        'a host that merely starts with localhost',
        { callback_url: 'http://localhost.evil.test/cb' },
        MESSAGES.invalidCallbackUrl,
      ],
      ['no callback_url', { callback_url: undefined }, MESSAGES.invalidCallbackUrl],
      ['the plain method', { code_challenge_method: 'plain' }, MESSAGES.onlyS256],
      ['no method', { code_challenge_method: undefined }, MESSAGES.onlyS256],
      ['a short code_challenge', { code_challenge: 'abc' }, MESSAGES.invalidCodeChallenge],
      ['a padded code_challenge', { code_challenge: `${'A'.repeat(43)}=` }, MESSAGES.invalidCodeChallenge],
      [
        'a code_challenge outside base64url',
        { code_challenge: `${'A'.repeat(42)}+` },
        MESSAGES.invalidCodeChallenge,
      ],
      [
        'a code_challenge of 129 characters',
        { code_challenge: 'A'.repeat(129) },
        MESSAGES.invalidCodeChallenge,
      ],
    ])('%s: 400', async (_case, change, message) => {
      const result = await http('GET', authorizeUrl({ ...validParams(pkce), ...change }));
      expect(result.status).toBe(400);
      expect(result.body.error).toMatchObject({ message, type: 'invalid_request_error' });
    });

    it('shows a browser the same message on an HTML page', async () => {
      const page = await signedIn.newPage();
      const response = await page.goto(authorizeUrl(validParams(pkce, { code_challenge_method: 'plain' })));
      expect(response?.status()).toBe(400);
      expect(response?.headers()['content-type']).toContain('text/html');
      expect((await page.locator('.error').textContent())?.trim()).toBe(MESSAGES.onlyS256);
      await page.close();
    });
  });

  it('logs in, asks for consent with a spending limit and redirects with the code and the unchanged state', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const pkce = pkcePair();
    const state = 'st&ate=1 /?#ä';
    const appName = '<script>alert("x")</script> Заметки';
    const page = await context.newPage();
    const first = await page.goto(authorizeUrl(validParams(pkce, { state, app_name: appName })));
    const headers = first?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['access-control-allow-origin']).toBeUndefined();
    // The application's name is text, never markup.
    expect(await page.locator('main p').nth(1).textContent()).toContain(appName);
    expect(await page.locator('script').count()).toBe(0);

    await page.fill('input[name="email"]', org.email);
    await screenshot(page, 'oauth-login');
    await logIn(page, 'wrong-password');
    expect((await page.locator('.error').textContent())?.trim()).toBe('Неверная почта или пароль.');
    await logIn(page);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'gw_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/api/auth' });

    expect(await page.locator('h1').textContent()).toContain(appName);
    const organizations = await page.locator('select[name="organizationId"] option').allTextContents();
    expect(organizations.map((name) => name.trim())).toEqual([
      expect.stringMatching(/^Org /),
      'Вторая организация',
    ]);
    const fixedScope = page.locator('input[name="scopes"][value="user:id"]');
    expect(await fixedScope.isChecked()).toBe(true);
    expect(await fixedScope.isDisabled()).toBe(true);
    await fillConsent(page, {
      pkce,
      scopes: ['user:name'],
      limit: { period: 'day', amount: '50,50' },
      screenshots: 'oauth',
    });
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(application.callbackUrl)),
      page.click('button[name="decision"][value="approve"]'),
    ]);
    const landed = new URL(page.url());
    expect(landed.origin + landed.pathname).toBe(application.callbackUrl);
    expect([...landed.searchParams.keys()]).toEqual(['code', 'state']);
    expect(landed.searchParams.get('state')).toBe(state);

    const issued = await exchange({
      code: landed.searchParams.get('code'),
      code_verifier: pkce.verifier,
      callback_url: application.callbackUrl,
    });
    expect(issued.status).toBe(200);
    expect(Object.keys(issued.body).sort()).toEqual(['key', 'user_id']);
    expect(issued.body.user_id).toBe(org.userId);

    // An ordinary API key of the organization, on either replica.
    for (const base of [api, replica]) {
      expect((await http('GET', `${base}/v1/balance`, { token: issued.body.key })).status).toBe(200);
    }
    const info = await http('GET', `${replica}/auth/userinfo`, { token: issued.body.key });
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ id: org.userId, name: 'E2E User' });
    expect((await http('GET', `${api}/auth/userinfo`)).status).toBe(401);
    expect((await http('GET', `${api}/auth/userinfo`, { token: 'sk-gw-not-a-key' })).status).toBe(401);

    const listed = await http('GET', `${api}/v1/console/api-keys`, { token: await consoleToken() });
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({
        app: appName,
        userId: org.userId,
        scopes: ['user:id', 'user:name'],
        limit: { period: 'day', amount: '50.50000000' },
      }),
    );
    await context.close();
  });

  it('sends a refusal back as error=access_denied with the state, and no code', async () => {
    const landed = await authorize(signedIn, {
      pkce: pkcePair(),
      state: 'decline-state',
      decision: 'decline',
    });
    expect([...landed.searchParams]).toEqual([
      ['error', 'access_denied'],
      ['state', 'decline-state'],
    ]);
  });

  it.each([
    ['more than two decimals', '1.234'],
    ['a negative amount', '-5'],
    ['an absurd amount', '100000000000'],
  ])('refuses a limit with %s on the form', async (_case, amount) => {
    const page = await openConsent(signedIn, { pkce: pkcePair() });
    await fillConsent(page, { pkce: pkcePair(), limit: { period: 'month', amount } });
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/auth/authorize/consent')),
      page.click('button[name="decision"][value="approve"]'),
    ]);
    expect(response.status()).toBe(400);
    await page.waitForLoadState();
    expect(page.url().startsWith(application.callbackUrl)).toBe(false);
    expect(await page.locator('.error').textContent()).toMatch(/Сумма лимита/);
    expect(await page.locator('input[name="limitAmount"]').inputValue()).toBe(amount);
    await page.close();
  });

  it('refuses a forged consent post (no valid CSRF token) without redirecting', async () => {
    const pkce = pkcePair();
    const page = await openConsent(signedIn, { pkce });
    const consentAction = await page.locator('form').getAttribute('action');
    await page.close();
    const target = new URL(consentAction ?? '', api).href;
    // From another origin's page: the session cookie goes along (same site), the token cannot.
    const forgery = await signedIn.newPage();
    await forgery.goto(application.forge(target));
    const [response] = await Promise.all([
      forgery.waitForResponse((r) => r.url().includes('/auth/authorize/consent')),
      forgery.click('#forge'),
    ]);
    expect(response.status()).toBe(403);
    await forgery.waitForLoadState();
    expect(forgery.url().startsWith(application.callbackUrl)).toBe(false);
    expect(await forgery.locator('.error').textContent()).toMatch(/Форма устарела/);
    await forgery.close();
    // And straight from the browser's cookie jar, without any token.
    const direct = await signedIn.request.post(target, { form: { decision: 'approve' }, maxRedirects: 0 });
    expect(direct.status()).toBe(403);
  });

  describe('token exchange errors (interface table), each with its exact message', () => {
    /** A code of its own for each case: the first use burns a code, whatever comes of it. */
    async function freshCode(appName: string) {
      const pkce = pkcePair();
      const landed = await authorize(signedIn, { pkce, appName });
      const code = landed.searchParams.get('code') ?? '';
      const body = (change: Record<string, string> = {}) => ({
        code,
        code_verifier: pkce.verifier,
        callback_url: application.callbackUrl,
        ...change,
      });
      return { pkce, code, body };
    }

    it('an unknown code', async () => {
      const result = await exchange({
        code: 'no-such-code',
        code_verifier: pkcePair().verifier,
        callback_url: application.callbackUrl,
      });
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(MESSAGES.invalidCode);
    });

    it('another callback_url, which burns the code', async () => {
      const { body } = await freshCode('Callback mismatch');
      const result = await exchange(body({ callback_url: `${application.callbackUrl}/` }));
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(MESSAGES.callbackMismatch);
      expect((await exchange(body())).body.error.message).toBe(MESSAGES.codeUsed);
    });

    it('a verifier that does not match the challenge, which burns the code', async () => {
      const { body } = await freshCode('Wrong verifier');
      const result = await exchange(body({ code_verifier: pkcePair().verifier }));
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(MESSAGES.invalidVerifier);
      // Then the right verifier comes too late.
      const right = await exchange(body());
      expect(right.status).toBe(400);
      expect(right.body.error.message).toBe(MESSAGES.codeUsed);
    });

    it('the plain method: the challenge itself as the verifier', async () => {
      const { pkce, body } = await freshCode('Plain method');
      expect((await exchange(body({ code_verifier: pkce.challenge }))).body.error.message).toBe(
        MESSAGES.invalidVerifier,
      );
    });

    it('a second exchange of a used code, which revokes the key the first one got', async () => {
      const { body } = await freshCode('Replayed code');
      const first = await exchange(body());
      expect(first.status).toBe(200);
      for (const base of [api, replica]) {
        expect((await http('GET', `${base}/v1/balance`, { token: first.body.key })).status).toBe(200);
      }
      const again = await exchange(body(), { base: replica });
      expect(again.status).toBe(400);
      expect(again.body.error.message).toBe(MESSAGES.codeUsed);
      for (const base of [api, replica]) {
        expect((await http('GET', `${base}/v1/balance`, { token: first.body.key })).status).toBe(401);
      }
    });

    it('a code older than 5 minutes', async () => {
      const { code, body } = await freshCode('Expiry');
      // Five minutes pass: the code's issue moves into the past (it is stored only as its digest).
      const aged = await db.query(
        `UPDATE "auth"."oauth_codes" SET "created_at" = "created_at" - interval '5 minutes 1 second',
                "expires_at" = "expires_at" - interval '5 minutes 1 second'
          WHERE "code_hash" = encode(sha256($1::bytea), 'hex')`,
        [code],
      );
      expect(aged.rowCount).toBe(1);
      const result = await exchange(body());
      expect(result.status).toBe(400);
      expect(result.body.error.message).toBe(MESSAGES.codeExpired);
    });
  });

  it('lets at most one of several exchanges racing for a code through, and revokes what it got', async () => {
    const pkce = pkcePair();
    const landed = await authorize(signedIn, { pkce, appName: 'Race' });
    const racing = {
      code: landed.searchParams.get('code'),
      code_verifier: pkce.verifier,
      callback_url: application.callbackUrl,
    };
    const results = await Promise.all(
      [api, replica, api, replica, api].map((base) => exchange(racing, { base })),
    );
    // The code was used five times: whichever exchange got a key, the others' uses revoke it
    // (RFC 6749 §4.1.2), and it learns of them before answering when they came while it made the key.
    const winners = results.filter((r) => r.status === 200);
    expect(winners.length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.body.error.message])).toEqual(
      Array.from({ length: 5 - winners.length }, () => [400, MESSAGES.codeUsed]),
    );
    for (const winner of winners) {
      for (const base of [api, replica]) {
        expect((await http('GET', `${base}/v1/balance`, { token: winner.body.key })).status).toBe(401);
      }
    }
  });

  it('limits token requests to 5 a minute per client address, across replicas', async () => {
    // Keep the six requests inside one minute of the limiter's window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const address = newAddress();
    const attempt = (base: string, from = address) =>
      exchange({ code: 'x', code_verifier: 'y', callback_url: 'z' }, { base, address: from });
    for (const base of [api, replica, api, replica, api]) expect((await attempt(base)).status).toBe(400);
    const sixth = await attempt(replica);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({ message: 'Too Many Requests', type: 'rate_limit_error' });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await attempt(api)).status).toBe(429);
    expect((await attempt(api, newAddress())).status).toBe(400);
  });

  it('rotates the key when the same application is authorized again: same id, new secret, old one refused at once everywhere', async () => {
    const token = await consoleToken();
    const appKeys = async () =>
      (await http('GET', `${api}/v1/console/api-keys`, { token })).body.data.filter(
        (k: { app?: string }) => k.app === 'Rotating app',
      );
    const first = await obtainKey({ appName: 'Rotating app', limit: { period: 'week', amount: '10' } });
    // Both replicas have the old secret cached.
    for (const base of [api, replica]) {
      expect((await http('GET', `${base}/v1/balance`, { token: first.key })).status).toBe(200);
    }
    const [before] = await appKeys();

    const second = await obtainKey({
      appName: 'Rotating app',
      scopes: ['user:email'],
      limit: { period: 'total', amount: '20' },
    });
    expect(second.key).not.toBe(first.key);
    for (const base of [api, replica]) {
      expect((await http('GET', `${base}/v1/balance`, { token: first.key })).status).toBe(401);
      expect((await http('GET', `${base}/v1/balance`, { token: second.key })).status).toBe(200);
    }
    const after = await appKeys();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: before.id,
      scopes: ['user:id', 'user:email'],
      limit: { period: 'total', amount: '20.00000000' },
    });
    expect(after[0].short).not.toBe(before.short);
    expect((await http('GET', `${api}/auth/userinfo`, { token: second.key })).body).toEqual({
      id: org.userId,
      email: org.email,
    });

    // Another organization is another grant: a key of its own.
    const elsewhere = await obtainKey({ appName: 'Rotating app', organizationId: secondOrganizationId });
    expect(elsewhere.key).not.toBe(second.key);
    expect((await http('GET', `${api}/v1/balance`, { token: second.key })).status).toBe(200);
  });

  it('never lets parallel requests spend past the limit the user chose', async () => {
    const { key } = await obtainKey({ appName: 'Spender', limit: { period: 'total', amount: '2' } });
    // 1000 one-letter words echoed back up to max_tokens: each request costs ~0.75 RUB (1000 prompt and 1000
    // completion tokens) and reserves a little more, so at most two fit under 2 RUB, and eight would cost 6.
    const prompt = Array.from({ length: 1000 }, () => 'a').join(' ');
    const chat = () =>
      http('POST', `${api}/v1/chat/completions`, {
        token: key,
        body: { model: 'demo/chat', max_tokens: 1000, messages: [{ role: 'user', content: prompt }] },
      });
    const results = await Promise.all(Array.from({ length: 8 }, chat));
    const served = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(served.length + refused.length).toBe(8);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect(r.body.error.code).toBe('spending_limit_exceeded');
    const spent = served.reduce((sum, r) => sum.plus(new Decimal(r.body.usage.cost_rub)), new Decimal(0));
    expect(spent.gt(0.5)).toBe(true);
    expect(spent.lte(2)).toBe(true);
  });

  it('lets an organization admin revoke an OAuth-issued key from the console', async () => {
    const { key } = await obtainKey({ appName: 'Revoked app' });
    const token = await consoleToken();
    const listed = (await http('GET', `${api}/v1/console/api-keys`, { token })).body.data.find(
      (k: { app?: string }) => k.app === 'Revoked app',
    );
    expect(listed).toMatchObject({ scopes: ['user:id'], userId: org.userId });
    expect((await http('GET', `${replica}/v1/balance`, { token: key })).status).toBe(200);
    expect((await http('DELETE', `${api}/v1/console/api-keys/${listed.id}`, { token })).status).toBe(200);
    for (const base of [api, replica]) {
      expect((await http('GET', `${base}/v1/balance`, { token: key })).status).toBe(401);
    }
  });
});
