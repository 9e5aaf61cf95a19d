import { DomainError, OAUTH_MESSAGES } from '@gw/contracts';
import {
  authorizationQuery,
  callbackRedirect,
  isValidCallbackUrl,
  parseAuthorizationRequest,
} from './authorization-request';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const valid = {
  response_type: 'code',
  callback_url: 'https://app.example.com/cb',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
};

function messageOf(query: Record<string, unknown>): string {
  try {
    parseAuthorizationRequest(query);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    return (err as DomainError).message;
  }
  throw new Error('accepted');
}

describe('callback_url rules', () => {
  it.each([
    'https://app.example.com/cb',
    'https://app.example.com:8443/cb?x=1',
    'http://localhost/cb',
    'http://localhost:5173/callback',
    'http://127.0.0.1:8080/cb',
    'https://localhost/cb',
  ])('accepts %s', (url) => expect(isValidCallbackUrl(url)).toBe(true));

  it.each([
    ['plain http elsewhere', 'http://app.example.com/cb'],
    ['a host that merely starts with localhost', 'http://localhost.evil.com/cb'],
    ['a host that merely starts with 127.0.0.1', 'http://127.0.0.1.nip.io/cb'],
    ['localhost as a user name', 'http://localhost@evil.com/cb'],
    ['credentials', 'https://user:pw@app.example.com/cb'],
    ['a fragment', 'https://app.example.com/cb#x'],
    ['another scheme', 'javascript:alert(1)'],
    ['a relative URL', '/cb'],
    ['no URL at all', 'not a url'],
    ['leading space', ' https://app.example.com/cb'],
    ['a quote in the host', "https://a'b.example.com/cb"],
    ['a semicolon in the host', 'https://a;b.example.com/cb'],
    ['IPv6 loopback over http', 'http://[::1]/cb'],
    ['too long', `https://app.example.com/${'a'.repeat(2100)}`],
  ])('refuses %s', (_why, url) => expect(isValidCallbackUrl(url)).toBe(false));
});

describe('parseAuthorizationRequest', () => {
  it('takes a valid request with state and app_name', () => {
    expect(parseAuthorizationRequest({ ...valid, state: 'xyz', app_name: ' My App ' })).toEqual({
      callbackUrl: 'https://app.example.com/cb',
      codeChallenge: CHALLENGE,
      state: 'xyz',
      appName: 'My App',
    });
  });

  it('answers each rule with the exact message of the interface', () => {
    expect(messageOf({ ...valid, callback_url: 'http://example.com/cb' })).toBe(
      OAUTH_MESSAGES.invalidCallbackUrl,
    );
    expect(messageOf({ ...valid, callback_url: undefined })).toBe(OAUTH_MESSAGES.invalidCallbackUrl);
    expect(messageOf({ ...valid, code_challenge_method: 'plain' })).toBe(OAUTH_MESSAGES.onlyS256);
    expect(messageOf({ ...valid, code_challenge_method: undefined })).toBe(OAUTH_MESSAGES.onlyS256);
    expect(messageOf({ ...valid, code_challenge: 'short' })).toBe(OAUTH_MESSAGES.invalidCodeChallenge);
    expect(messageOf({ ...valid, code_challenge: `${CHALLENGE}=` })).toBe(
      OAUTH_MESSAGES.invalidCodeChallenge,
    );
    expect(messageOf({ ...valid, code_challenge: [CHALLENGE, CHALLENGE] })).toBe(
      OAUTH_MESSAGES.invalidCodeChallenge,
    );
  });

  it('refuses another response_type', () => {
    expect(messageOf({ ...valid, response_type: 'token' })).toMatch(/response_type/);
  });
});

describe('callbackRedirect', () => {
  const request = parseAuthorizationRequest({
    ...valid,
    callback_url: 'https://app.example.com/cb?keep=1&code=old',
    state: 'a&code=evil#x',
  });

  it('adds the code and the unchanged state, and nothing else', () => {
    const url = new URL(callbackRedirect(request, { code: 'c0de' }));
    expect(url.origin + url.pathname).toBe('https://app.example.com/cb');
    expect([...url.searchParams]).toEqual([
      ['keep', '1'],
      ['code', 'c0de'],
      ['state', 'a&code=evil#x'],
    ]);
    expect(url.hash).toBe('');
  });

  it('says access_denied on refusal', () => {
    const url = new URL(callbackRedirect(request, { error: 'access_denied' }));
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('a&code=evil#x');
    expect(url.searchParams.has('code')).toBe(false);
  });

  it('leaves out state when none was given', () => {
    const url = new URL(callbackRedirect(parseAuthorizationRequest(valid), { code: 'c' }));
    expect(url.searchParams.has('state')).toBe(false);
  });

  it('round-trips through the query of the forms', () => {
    const again = parseAuthorizationRequest(
      Object.fromEntries(new URLSearchParams(authorizationQuery(request))),
    );
    expect(again).toEqual(request);
  });
});
