import type { Response } from 'express';

/**
 * Headers of every HTML page of the flow: no script at all, styles only from the gateway, no
 * framing (clickjacking of the consent button), forms only to the gateway and to where the flow
 * redirects (browsers check form-action on the redirect after a post), no Referer carrying the
 * query, and nothing cached.
 */
export function setBrowserPageHeaders(response: Response, formTargets: string[] = []): void {
  const formAction = formTargets.length > 0 ? `'self' ${formTargets.join(' ')}` : "'self'";
  response.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Paths of the browser routes: cookie-authorized, so no CORS, unlike every bearer route. */
export const BROWSER_ROUTE_PREFIXES = ['/api/auth/authorize', '/api/auth/assets/'];

export function isBrowserRoute(url: string): boolean {
  const path = url.split('?')[0];
  return BROWSER_ROUTE_PREFIXES.some(
    (prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
  );
}
