/**
 * API keys never contain a dot; a console JWT is always three dot-separated base64url parts. The
 * shape alone picks the verifier, so an API key is never sent to the JWT check nor a JWT to auth.
 */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}
