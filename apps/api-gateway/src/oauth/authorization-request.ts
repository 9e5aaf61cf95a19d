import {
  APP_NAME_MAX_LENGTH,
  CALLBACK_URL_MAX_LENGTH,
  DomainError,
  isCodeChallenge,
  OAUTH_MESSAGES,
} from '@gw/contracts';

/** The longest `state` carried back; an application's CSRF token is far shorter. */
export const STATE_MAX_LENGTH = 1024;

/** What GET /auth/authorize was asked for, checked; the query of every page of the flow. */
export interface AuthorizationRequest {
  /** Exactly as given: the token endpoint compares it character by character. */
  callbackUrl: string;
  codeChallenge: string;
  state: string | null;
  appName: string | null;
}

/** Hosts that may take the code over plain HTTP (interface: HTTPS except localhost and 127.0.0.1). */
const PLAIN_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);
/**
 * A host name of letters, digits, dots, hyphens and underscores, or a bracketed IPv6 address: the
 * origin is written into the Content-Security-Policy, where a `;` or a quote would be syntax.
 */
const SAFE_HOST = /^(?:[a-z0-9._-]+|\[[0-9a-f:.]+\])$/;

/**
 * Whether `value` may receive codes: an absolute https URL (http only on localhost or 127.0.0.1,
 * compared as the parsed host, so `localhost.example.com` is not exempt), without credentials or
 * fragment (RFC 6749 §3.1.2).
 */
export function isValidCallbackUrl(value: string): boolean {
  if (value.length === 0 || value.length > CALLBACK_URL_MAX_LENGTH || value !== value.trim()) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.hash || value.includes('#')) return false;
  if (!SAFE_HOST.test(url.hostname)) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && PLAIN_HTTP_HOSTS.has(url.hostname);
}

/** Interface, "Authorization errors": each rule with its exact message, callback_url first. */
export function parseAuthorizationRequest(query: Record<string, unknown>): AuthorizationRequest {
  const responseType = single(query.response_type);
  if (responseType !== 'code') {
    throw invalid('Поддерживается только response_type=code', 'response_type');
  }
  const callbackUrl = single(query.callback_url);
  if (callbackUrl === undefined || !isValidCallbackUrl(callbackUrl)) {
    throw invalid(OAUTH_MESSAGES.invalidCallbackUrl, 'callback_url');
  }
  if (single(query.code_challenge_method) !== 'S256') {
    throw invalid(OAUTH_MESSAGES.onlyS256, 'code_challenge_method');
  }
  const codeChallenge = single(query.code_challenge);
  if (codeChallenge === undefined || !isCodeChallenge(codeChallenge)) {
    throw invalid(OAUTH_MESSAGES.invalidCodeChallenge, 'code_challenge');
  }
  const state = optional(query.state, 'state', STATE_MAX_LENGTH);
  const appName = optional(query.app_name, 'app_name', APP_NAME_MAX_LENGTH);
  return { callbackUrl, codeChallenge, state, appName: appName?.trim() || null };
}

/** The query that names this request again, for the forms of the flow to post back to. */
export function authorizationQuery(request: AuthorizationRequest): string {
  const query = new URLSearchParams({
    response_type: 'code',
    callback_url: request.callbackUrl,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  });
  if (request.state !== null) query.set('state', request.state);
  if (request.appName !== null) query.set('app_name', request.appName);
  return query.toString();
}

/**
 * Where the browser goes at the end: the callback_url with only our parameters set (any of the
 * same name it carried replaced), each encoded by URLSearchParams, so no value can add another.
 */
export function callbackRedirect(
  request: AuthorizationRequest,
  outcome: { code: string } | { error: 'access_denied' },
): string {
  const url = new URL(request.callbackUrl);
  for (const name of ['code', 'error', 'state']) url.searchParams.delete(name);
  if ('code' in outcome) url.searchParams.set('code', outcome.code);
  else url.searchParams.set('error', outcome.error);
  if (request.state !== null) url.searchParams.set('state', request.state);
  return url.href;
}

/** A parameter given twice is an array in Express's query; it names no single value. */
function single(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function optional(value: unknown, name: string, maxLength: number): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw invalid(`${name} должен быть строкой не длиннее ${maxLength} символов`, name);
  }
  return value;
}

function invalid(message: string, param: string): DomainError {
  return new DomainError('invalid_request', message, param);
}
