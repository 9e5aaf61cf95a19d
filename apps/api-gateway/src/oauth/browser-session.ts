import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type UserPrincipal } from '@gw/contracts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { CredentialResolver } from '../security/credential-resolver';

/** The console session: the console JWT itself, which the gateway verifies as it does a bearer one. */
export const SESSION_COOKIE = 'gw_session';
/** A random value per browser; forms carry an HMAC of it (a signed double-submit token). */
export const CSRF_COOKIE = 'gw_csrf';
/** Browser routes live under this path; the cookies go nowhere else. */
const COOKIE_PATH = '/api/auth';
const CSRF_COOKIE_MAX_AGE_S = 24 * 3600;

/** Hosts where the cookies go without `Secure`, so the flow works over plain HTTP in development. */
const PLAIN_HTTP_HOSTS = new Set(['localhost', '127.0.0.1']);

export function readCookies(request: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator <= 0) continue;
    const name = part.slice(0, separator).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(separator + 1).trim()));
    } catch {
      // A value that is not valid percent-encoding was not set by us.
    }
  }
  return cookies;
}

/**
 * Cookies and CSRF tokens of the authorization pages. Stateless: the session is the signed console
 * JWT (its membership checked again on every use), the CSRF token an HMAC under the gateway's JWT
 * secret, so every replica accepts what another issued.
 */
@Injectable()
export class BrowserSession {
  constructor(
    @Inject(API_GATEWAY_ENV) private readonly env: ApiGatewayEnv,
    private readonly credentials: CredentialResolver,
  ) {}

  /** The signed-in user, or null when there is no session or it no longer holds. */
  async user(request: Request): Promise<UserPrincipal | null> {
    const token = readCookies(request).get(SESSION_COOKIE);
    if (!token) return null;
    try {
      const principal = await this.credentials.resolve(token);
      return principal.kind === 'user' ? principal : null;
    } catch (err) {
      if (err instanceof DomainError && ['unauthorized', 'forbidden', 'invalid_api_key'].includes(err.code)) {
        return null;
      }
      throw err;
    }
  }

  startSession(request: Request, response: Response, jwt: string, maxAgeSeconds: number): void {
    setCookie(request, response, SESSION_COOKIE, jwt, maxAgeSeconds);
  }

  /** The token for this browser's forms; sets the browser's CSRF cookie when it has none. */
  csrfToken(request: Request, response: Response): string {
    let secret = readCookies(request).get(CSRF_COOKIE);
    if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) {
      secret = randomBytes(32).toString('base64url');
      setCookie(request, response, CSRF_COOKIE, secret, CSRF_COOKIE_MAX_AGE_S);
    }
    return this.sign(secret);
  }

  /** A form post is ours only if it carries the token of this browser's CSRF cookie. */
  checkCsrf(request: Request, submitted: unknown): void {
    const secret = readCookies(request).get(CSRF_COOKIE);
    const valid =
      typeof secret === 'string' &&
      typeof submitted === 'string' &&
      submitted.length === 43 &&
      timingSafeEqual(Buffer.from(this.sign(secret)), Buffer.from(submitted));
    if (!valid) {
      throw new DomainError(
        'forbidden',
        'Форма устарела или отправлена не с этой страницы. Вернитесь в приложение и начните заново.',
        'csrf',
      );
    }
  }

  private sign(secret: string): string {
    return createHmac('sha256', this.env.JWT_SECRET).update(`csrf:${secret}`).digest('base64url');
  }
}

function setCookie(
  request: Request,
  response: Response,
  name: string,
  value: string,
  maxAgeSeconds: number,
): void {
  response.cookie(name, value, {
    httpOnly: true,
    secure: !PLAIN_HTTP_HOSTS.has(request.hostname),
    sameSite: 'lax',
    path: COOKIE_PATH,
    maxAge: maxAgeSeconds * 1000,
  });
}
